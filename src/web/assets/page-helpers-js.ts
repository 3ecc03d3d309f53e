/**
 * The helpers both hosted page scripts use (element lookup, a field's inline error, the error
 * summary), as plain ES2017 text: each script asset starts with it (assets.ts), inside the
 * asset's own function scope, so the page gets one file and no global names.
 */
export const PAGE_HELPERS_JS = `var PageHelpers = (function () {
  'use strict';
  function byId(id) { return document.getElementById(id); }
  function value(id) { var el = byId(id); return el ? el.value.trim() : ''; }

  /** The message under the input (its "<id>-error" slot), or none; the input marked invalid with it. */
  function setFieldError(inputId, message) {
    var input = byId(inputId);
    var slot = byId(inputId + '-error');
    if (!input || !slot) return;
    slot.textContent = message || '';
    slot.hidden = !message;
    if (message) input.setAttribute('aria-invalid', 'true'); else input.removeAttribute('aria-invalid');
  }

  /**
   * The summary box (#errors): an optional title, then each problem, linked to its input when it
   * has one; focused, so a screen reader reads it. No items hide it.
   */
  function showErrors(items, title) {
    var box = byId('errors');
    box.textContent = '';
    if (!items.length) { box.hidden = true; return; }
    if (title) {
      var heading = document.createElement('p');
      heading.textContent = title;
      box.appendChild(heading);
    }
    var list = document.createElement('ul');
    items.forEach(function (item) {
      var li = document.createElement('li');
      if (item.input) {
        var link = document.createElement('a');
        link.href = '#' + item.input;
        link.textContent = item.message;
        link.addEventListener('click', function (event) {
          event.preventDefault();
          var target = byId(item.input);
          if (target) target.focus();
        });
        li.appendChild(link);
      } else {
        li.textContent = item.message;
      }
      list.appendChild(li);
    });
    box.appendChild(list);
    box.hidden = false;
    box.focus();
  }

  return { byId: byId, value: value, setFieldError: setFieldError, showErrors: showErrors };
})();`;
