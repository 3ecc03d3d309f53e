import { html, type SafeHtml } from '../web/index.ts';

export interface FieldOptions {
  type?: 'text' | 'email' | 'password' | 'search';
  autocomplete?: string;
  value?: string;
  hint?: string;
  required?: boolean;
  inputmode?: 'numeric' | 'text';
  pattern?: string;
  maxlength?: number;
  minlength?: number;
  autofocus?: boolean;
  className?: string;
}

/** A labelled input; its hint is tied to it with aria-describedby, so a screen reader reads both. */
export function inputField(name: string, label: string, options: FieldOptions = {}): SafeHtml {
  const id = `field-${name}`;
  const hintId = `${id}-hint`;
  const attributes = [
    html` type="${options.type ?? 'text'}"`,
    options.autocomplete ? html` autocomplete="${options.autocomplete}"` : html``,
    options.value !== undefined ? html` value="${options.value}"` : html``,
    options.required === false ? html`` : html` required`,
    options.inputmode ? html` inputmode="${options.inputmode}"` : html``,
    options.pattern ? html` pattern="${options.pattern}"` : html``,
    options.maxlength ? html` maxlength="${options.maxlength}"` : html``,
    options.minlength ? html` minlength="${options.minlength}"` : html``,
    options.autofocus ? html` autofocus` : html``,
    options.className ? html` class="${options.className}"` : html``,
    options.hint ? html` aria-describedby="${hintId}"` : html``,
  ];
  return html`<div class="field"><label for="${id}">${label}</label>${
    options.hint ? html`<span class="hint" id="${hintId}">${options.hint}</span>` : ''
  }<input id="${id}" name="${name}"${attributes}></div>`;
}

/** The six-digit code field of the second factor. */
export function codeField(): SafeHtml {
  return inputField('code', 'Code from your authenticator app', {
    autocomplete: 'one-time-code',
    inputmode: 'numeric',
    pattern: '[0-9 ]{6,7}',
    maxlength: 7,
    hint: 'Six digits; a new code appears every 30 seconds.',
    className: 'one-time-code',
    autofocus: true,
  });
}
