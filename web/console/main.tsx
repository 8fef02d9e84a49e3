// The admin console's entry: its styles, and the app mounted in place of the loading page.
import '../design/components.css';
import './console.css';
import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app')!;
root.replaceChildren();
render(<App />, root);
