// The hosted verification page's entry: its styles, and the app mounted in place of the loading page.
import '../design/components.css';
import './hosted.css';
import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app')!;
root.replaceChildren();
render(<App />, root);
