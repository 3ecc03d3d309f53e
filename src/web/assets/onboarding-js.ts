/**
 * The KYC onboarding page's script, served as /purchase/assets/onboarding.js (same origin, so the
 * CSP needs no inline script) after `PageHelpers` (page-helpers-js.ts). Plain ES2017. It posts the details form as JSON and each document
 * as its own bytes to the page's endpoints, shows a refusal next to the field it names (the
 * users domain's own words), and reloads the page, which the server renders with what is still
 * needed, once a step is stored.
 */
export const ONBOARDING_JS = String.raw`(function () {
  'use strict';
  var root = document.getElementById('onboarding');
  if (!root || !root.dataset.token) return;
  var base = '/onboarding/' + encodeURIComponent(root.dataset.token);
  var byId = PageHelpers.byId;
  var value = PageHelpers.value;
  var setFieldError = PageHelpers.setFieldError;
  var showErrors = PageHelpers.showErrors;

  /** fields.residenceAddress.postalCode -> o-residenceAddress-postalCode; fields.x -> o-x. */
  function inputFor(field) {
    if (!field) return null;
    var id = 'o-' + field.replace(/^fields\./, '').replace(/\./g, '-');
    return byId(id) ? id : null;
  }

  function send(path, init) {
    return fetch(path, init).then(function (response) {
      if (response.ok) return null;
      return response.text().then(function (text) {
        var body = null;
        try { body = JSON.parse(text); } catch (ignored) { body = null; }
        var error = new Error((body && body.message) || response.statusText);
        error.field = body && body.problematicField;
        throw error;
      });
    });
  }

  function refused(error) {
    var input = inputFor(error.field);
    if (input) setFieldError(input, error.message);
    showErrors([{ message: error.message, input: input }]);
  }

  function collectFields(form) {
    var fields = {};
    var missing = [];
    Array.prototype.forEach.call(form.querySelectorAll('[data-field]'), function (group) {
      var fieldId = group.dataset.field;
      if (group.dataset.kind === 'address') {
        var address = {};
        ['street1', 'street2', 'city', 'state', 'postalCode', 'country'].forEach(function (part) {
          var id = 'o-' + fieldId + '-' + part;
          var v = value(id);
          if (v !== '') address[part] = v;
          else if (byId(id).required) missing.push(id);
        });
        fields[fieldId] = address;
      } else {
        var id = 'o-' + fieldId;
        if (value(id) === '') missing.push(id);
        fields[fieldId] = value(id);
      }
    });
    return { fields: fields, missing: missing };
  }

  var details = byId('details-form');
  if (details) details.addEventListener('submit', function (event) {
    event.preventDefault();
    Array.prototype.forEach.call(details.querySelectorAll('input, select'), function (el) { setFieldError(el.id, ''); });
    var collected = collectFields(details);
    if (collected.missing.length) {
      var items = collected.missing.map(function (id) {
        var label = document.querySelector('label[for="' + id + '"]');
        var message = (label ? label.textContent : id) + ': ' + root.dataset.neededText;
        setFieldError(id, message);
        return { message: message, input: id };
      });
      showErrors(items);
      return;
    }
    var button = byId('save-details');
    button.disabled = true;
    send(base + '/fields', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fields: collected.fields })
    }).then(function () { window.location.reload(); }, function (error) {
      button.disabled = false;
      refused(error);
    });
  });

  Array.prototype.forEach.call(document.querySelectorAll('form.doc-form'), function (form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var fieldId = form.dataset.document;
      var fileId = 'd-' + fieldId + '-file';
      var input = byId(fileId);
      var file = input.files && input.files[0];
      setFieldError(fileId, '');
      if (!file) {
        setFieldError(fileId, root.dataset.chooseText);
        showErrors([{ message: root.dataset.chooseText, input: fileId }]);
        return;
      }
      var button = form.querySelector('button');
      button.disabled = true;
      var docType = value('d-' + fieldId + '-type');
      send(base + '/documents/' + encodeURIComponent(fieldId) + '?docType=' + encodeURIComponent(docType), {
        method: 'POST',
        headers: { 'content-type': file.type || 'application/octet-stream' },
        body: file
      }).then(function () { window.location.reload(); }, function (error) {
        button.disabled = false;
        setFieldError(fileId, error.message);
        showErrors([{ message: error.message, input: fileId }]);
      });
    });
  });
})();
`;
