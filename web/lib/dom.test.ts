// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import { h, showError, svg } from './dom.js';

// The DOM helper every page script builds with, in a DOM without a browser.

describe('h()', () => {
  it('sets attributes, leaves out null, undefined and false, and writes true as an empty attribute', () => {
    const input = h('input', {
      id: 'email',
      required: true,
      disabled: false,
      placeholder: null,
      title: undefined,
      maxlength: 10,
    });
    expect(input.outerHTML).toBe('<input id="email" required="" maxlength="10">');
  });

  it('adds on<event> keys as listeners, not attributes', () => {
    const click = vi.fn();
    const button = h('button', { onclick: click }, 'Go');
    button.click();
    expect(click).toHaveBeenCalledTimes(1);
    expect(button.hasAttribute('onclick')).toBe(false);
  });

  it('appends nested children and skips empty ones; text is text, never markup', () => {
    const list = h('ul', null, [h('li', null, 'a'), [null, h('li', null, 2)]], false, undefined, '<b>x</b>');
    expect(list.children).toHaveLength(2);
    expect(list.textContent).toBe('a2<b>x</b>');
    expect(list.querySelector('b')).toBeNull();
  });

  it('svg() makes SVG-namespace elements', () => {
    const rect = svg('rect', { width: 10, height: 5 });
    expect(rect.namespaceURI).toBe('http://www.w3.org/2000/svg');
    expect(rect.getAttribute('width')).toBe('10');
  });
});

describe('showError()', () => {
  it('shows one alert at a time, replacing the previous one', () => {
    const form = h('div', null, h('input'));
    showError(form, 'first');
    showError(form, 'second');
    const alerts = form.querySelectorAll('[role=alert]');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.textContent).toBe('second');
    expect(alerts[0]!.className).toBe('error');
  });
});
