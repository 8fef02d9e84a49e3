// @vitest-environment happy-dom
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Button, Dialog, Field, Message, Pager, Pill, pillTone, Table } from './index.js';

// The design system's components, rendered in happy-dom (no browser).

let root: HTMLElement;
function mount(node: preact.ComponentChild): HTMLElement {
  root = document.createElement('div');
  document.body.append(root);
  act(() => render(node, root));
  return root;
}
afterEach(() => {
  render(null, root);
  root.remove();
});

describe('components', () => {
  it('Button is type=button unless told, and its variant is its class', () => {
    const html = mount(
      <>
        <Button>Go</Button>
        <Button variant="danger" type="submit">
          Delete
        </Button>
      </>,
    );
    const [plain, danger] = [...html.querySelectorAll('button')];
    expect(plain!.type).toBe('button');
    expect(plain!.className).toBe('');
    expect(danger!.type).toBe('submit');
    expect(danger!.className).toBe('danger');
  });

  it('Field labels its control', () => {
    const html = mount(
      <Field id="email" label="Email">
        <input id="email" />
      </Field>,
    );
    expect(html.querySelector('label')!.htmlFor).toBe('email');
  });

  it('Message: an error is an alert, a notice a status', () => {
    const html = mount(
      <>
        <Message kind="error">Bad</Message>
        <Message kind="notice">Note</Message>
      </>,
    );
    expect(html.querySelector('.error')!.getAttribute('role')).toBe('alert');
    expect(html.querySelector('.notice')!.getAttribute('role')).toBe('status');
  });

  it('Pill takes its tone from the status word', () => {
    expect(pillTone('APPROVED')).toBe('pill--good');
    expect(pillTone('DECLINED')).toBe('pill--bad');
    expect(pillTone('IN_REVIEW')).toBe('pill--wait');
    expect(pillTone('NOT_STARTED')).toBe('');
    expect(mount(<Pill value="failed" />).innerHTML).toBe('<span class="pill pill--bad">failed</span>');
  });

  it('Table has one header cell per heading and scrolls sideways on a phone', () => {
    const html = mount(
      <Table heads={['Id', 'Status']}>
        <tr>
          <td>1</td>
          <td>ok</td>
        </tr>
      </Table>,
    );
    expect([...html.querySelectorAll('th')].map((th) => th.textContent)).toEqual(['Id', 'Status']);
    expect(html.firstElementChild!.className).toBe('table-scroll');
  });

  it('Pager disables what cannot be done and calls back', () => {
    const next = vi.fn();
    const html = mount(<Pager page={1} hasPrevious={false} hasNext onPrevious={() => {}} onNext={next} />);
    const [previous, nextButton] = [...html.querySelectorAll('button')];
    expect(previous!.disabled).toBe(true);
    nextButton!.click();
    expect(next).toHaveBeenCalledOnce();
    expect(html.textContent).toContain('page 1');
  });

  it('Dialog opens and closes with its prop', () => {
    const html = mount(
      <Dialog open title="Decide" onClose={() => {}}>
        <p>Body</p>
      </Dialog>,
    );
    const dialog = html.querySelector('dialog')!;
    expect(dialog.open).toBe(true);
    expect(dialog.getAttribute('aria-label')).toBe('Decide');
    act(() =>
      render(
        <Dialog open={false} title="Decide" onClose={() => {}}>
          <p>Body</p>
        </Dialog>,
        root,
      ),
    );
    expect(dialog.open).toBe(false);
  });
});
