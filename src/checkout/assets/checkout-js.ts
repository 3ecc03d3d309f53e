/**
 * The checkout page's script, served as /purchase/assets/checkout.js (same origin, so the CSP
 * needs no inline script). Kept as text here so the esbuild bundle carries it without a file
 * copy step; plain ES2017, no template literals, no dependencies.
 *
 * It talks only to the page's own JSON endpoints under /purchase/. Card details are read from
 * inputs that have no `name` (a form submitted without this script sends none of them) and go
 * straight into one POST body; they are never put in a URL or stored in the browser.
 */
export const CHECKOUT_JS = String.raw`(function () {
  'use strict';
  var root = document.getElementById('checkout');
  if (!root || !root.dataset.mode) return;
  var data = root.dataset;
  var state = {
    reservation: data.reservation,
    accountId: data.accountId,
    orderId: data.orderId || null,
    orderToken: data.orderToken || null,
    quote: null,
    quoteKey: null,
    expired: false,
    busy: false,
    codesShown: false,
    returned: data.mode === 'progress'
  };
  var loadedAt = Date.now();

  function byId(id) { return document.getElementById(id); }
  function value(id) { var el = byId(id); return el ? el.value.trim() : ''; }

  // Server problematicField -> the input that shows the message.
  var FIELD_INPUTS = {
    'amount': 'f-amount', 'sourceCurrency': 'f-sourceCurrency', 'destCurrency': 'f-destCurrency',
    'dest': 'f-dest', 'givenName': 'f-firstName', 'familyName': 'f-lastName', 'email': 'f-email',
    'phone': 'f-phone', 'address.street1': 'f-street1', 'address.city': 'f-city',
    'address.state': 'f-state', 'address.postalCode': 'f-postalCode', 'address.country': 'f-country',
    'debitCard.number': 'f-card-number', 'debitCard.month': 'f-card-expiry',
    'debitCard.year': 'f-card-expiry', 'debitCard.cvv': 'f-card-cvv', 'debitCard': 'f-card-number',
    'sms': 'f-sms', 'card2fa': 'f-card2fa'
  };

  function showErrors(messages) {
    var box = byId('errors');
    box.textContent = '';
    if (!messages.length) { box.hidden = true; return; }
    var title = document.createElement('p');
    title.textContent = messages.length === 1 ? 'There is a problem:' : 'There are ' + messages.length + ' problems:';
    box.appendChild(title);
    var list = document.createElement('ul');
    messages.forEach(function (item) {
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

  function setFieldError(inputId, message) {
    var input = byId(inputId);
    var slot = byId(inputId + '-error');
    if (!input || !slot) return;
    if (message) {
      slot.textContent = message;
      slot.hidden = false;
      input.setAttribute('aria-invalid', 'true');
    } else {
      slot.textContent = '';
      slot.hidden = true;
      input.removeAttribute('aria-invalid');
    }
  }

  function clearFieldErrors(form) {
    Array.prototype.forEach.call(form.querySelectorAll('[aria-invalid]'), function (input) {
      setFieldError(input.id, '');
    });
  }

  function api(method, path, body) {
    var init = { method: method, credentials: 'same-origin', cache: 'no-store', headers: {} };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (response) {
      return response.text().then(function (text) {
        var parsed = null;
        try { parsed = text ? JSON.parse(text) : null; } catch (ignored) { parsed = null; }
        if (!response.ok) {
          var error = new Error((parsed && parsed.message) || 'The request failed. Please try again.');
          error.envelope = parsed;
          error.status = response.status;
          throw error;
        }
        return parsed;
      });
    });
  }

  function networkMessage(error) {
    return error && error.envelope ? error.message : 'We could not reach the server. Check your connection and try again.';
  }

  /** A refusal from the server: next to its field when it names one, and in the summary. */
  function showServerError(error) {
    var field = error.envelope && error.envelope.problematicField;
    var input = field ? FIELD_INPUTS[field] : null;
    if (input && byId(input)) setFieldError(input, error.message);
    showErrors([{ message: networkMessage(error), input: input && byId(input) ? input : null }]);
  }

  // ---- expiry countdown -------------------------------------------------------------------
  function startCountdown() {
    var span = byId('countdown');
    var total = Number(data.expiresInMs);
    if (!span || !isFinite(total)) return;
    function tick() {
      var left = Math.max(0, total - (Date.now() - loadedAt));
      var seconds = Math.floor(left / 1000);
      var text = Math.floor(seconds / 60) + ':' + ('0' + (seconds % 60)).slice(-2);
      if (span.textContent !== text) span.textContent = text;
      if (left <= 0 && !state.orderId) { expire(); return; }
      if (!state.orderId) setTimeout(tick, 1000);
    }
    tick();
  }

  function expire() {
    state.expired = true;
    var pay = byId('pay');
    if (pay) { pay.disabled = true; }
    showErrors([{ message: 'This checkout link has expired. Please return to the site you came from and start again.' }]);
  }

  // ---- price for an unlocked reservation ----------------------------------------------------
  function quoteKey() {
    return [value('f-amount'), value('f-sourceCurrency'), value('f-destCurrency')].join('|');
  }

  function showQuote(quote) {
    byId('quote-source-amount').textContent = quote.sourceAmount + ' ' + quote.sourceCurrency;
    byId('quote-fees').textContent = Object.keys(quote.fees).map(function (code) {
      return quote.fees[code] + ' ' + code;
    }).join(' + ');
    byId('quote-dest-amount').textContent = quote.destAmount + ' ' + quote.destCurrency;
    byId('quote-rate').textContent = '1 ' + quote.sourceCurrency + ' = ' + quote.exchangeRate + ' ' + quote.destCurrency;
    byId('quote').hidden = false;
    byId('pay').textContent = 'Pay ' + quote.sourceAmount + ' ' + quote.sourceCurrency;
  }

  function fetchQuote() {
    var amountOk = /^\d+(\.\d+)?$/.test(value('f-amount'));
    setFieldError('f-amount', amountOk ? '' : 'Enter an amount, for example 100 or 99.50.');
    if (!amountOk) return Promise.resolve(false);
    var key = quoteKey();
    return api('POST', '/purchase/quote', {
      accountId: state.accountId,
      reservation: state.reservation,
      amount: value('f-amount'),
      sourceCurrency: value('f-sourceCurrency'),
      destCurrency: value('f-destCurrency')
    }).then(function (quote) {
      state.quote = quote;
      state.quoteKey = key;
      showQuote(quote);
      return true;
    }, function (error) {
      state.quote = null;
      showServerError(error);
      return false;
    });
  }

  // ---- the order form ----------------------------------------------------------------------
  var CARD_RULES = [
    ['f-card-number', function (v) { return /^\d{13,19}$/.test(v.replace(/[\s-]/g, '')); }, 'Enter the card number: 13 to 19 digits.'],
    ['f-card-expiry', function (v) { return /^(0[1-9]|1[0-2])\/\d{4}$/.test(v); }, 'Enter the expiry date as MM/YYYY, for example 04/2030.'],
    ['f-card-cvv', function (v) { return /^\d{3}$/.test(v); }, 'Enter the 3 digit security code from the back of the card.']
  ];

  function validateForm(form) {
    var problems = [];
    Array.prototype.forEach.call(form.querySelectorAll('input[required], select[required]'), function (input) {
      if (input.readOnly) return;
      var ok = input.value.trim() !== '' && input.checkValidity();
      var label = form.querySelector('label[for="' + input.id + '"]');
      var message = ok ? '' : (label ? label.textContent : 'This field') + ' is needed.';
      if (ok) {
        CARD_RULES.forEach(function (rule) {
          if (rule[0] === input.id && !rule[1](input.value.trim())) message = rule[2];
        });
      }
      setFieldError(input.id, message);
      if (message) problems.push({ message: message, input: input.id });
    });
    return problems;
  }

  function orderBody() {
    var expiry = value('f-card-expiry').split('/');
    var locked = data.quoteLocked === 'true';
    var body = {
      reservationId: state.reservation,
      amount: locked ? data.amount : state.quote.sourceAmount,
      sourceCurrency: locked ? data.sourceCurrency : value('f-sourceCurrency'),
      destCurrency: locked ? data.destCurrency : value('f-destCurrency'),
      dest: locked ? data.dest : value('f-dest'),
      referrerAccountId: state.accountId,
      givenName: value('f-firstName'),
      familyName: value('f-lastName'),
      email: value('f-email'),
      phone: value('f-phone'),
      address: {
        street1: value('f-street1'),
        city: value('f-city'),
        state: value('f-state'),
        postalCode: value('f-postalCode'),
        country: value('f-country')
      },
      debitCard: {
        number: value('f-card-number').replace(/[\s-]/g, ''),
        year: expiry[1] || '',
        month: expiry[0] || '',
        cvv: value('f-card-cvv')
      }
    };
    if (data.referenceId) body.referenceId = data.referenceId;
    return body;
  }

  function setBusy(busy, label) {
    state.busy = busy;
    var pay = byId('pay');
    if (!pay) return;
    pay.disabled = busy || state.expired;
    if (label) pay.textContent = label;
  }

  function onSubmit(event) {
    event.preventDefault();
    if (state.busy || state.expired) return;
    var form = event.target;
    showErrors([]);
    var problems = validateForm(form);
    if (problems.length) { showErrors(problems); return; }
    var locked = data.quoteLocked === 'true';
    if (!locked && (!state.quote || state.quoteKey !== quoteKey())) {
      // The buyer must see the total before anything is charged.
      fetchQuote().then(function (ok) {
        if (ok) showErrors([{ message: 'Please check the price above, then press Pay again.', input: 'pay' }]);
      });
      return;
    }
    var label = byId('pay').textContent;
    setBusy(true, 'Processing…');
    api('POST', '/purchase/orders', orderBody()).then(function (answer) {
      // The card fields are emptied at once: nothing of the card stays on the page.
      ['f-card-number', 'f-card-expiry', 'f-card-cvv'].forEach(function (id) { byId(id).value = ''; });
      state.busy = false;
      state.orderId = answer.orderId;
      state.orderToken = answer.orderToken;
      form.hidden = true;
      var cancel = byId('cancel');
      if (cancel) cancel.hidden = true;
      showProgress('Checking your payment…');
      poll();
    }, function (error) {
      setBusy(false, label);
      if (error.envelope && error.envelope.errorCode === 'illegalReservation') {
        showErrors([{ message: 'This checkout link can no longer be used. Please return to the site you came from.' }]);
        byId('pay').disabled = true;
        return;
      }
      if (error.envelope && error.envelope.errorCode === 'validation.amountMismatch' && data.quoteLocked !== 'true') {
        fetchQuote().then(function () { showServerError(error); });
        return;
      }
      showServerError(error);
    });
  }

  // ---- progress, codes, 3-D Secure ---------------------------------------------------------
  function showProgress(text) {
    var section = byId('progress');
    var wasHidden = section.hidden;
    section.hidden = false;
    setStatus(text);
    if (wasHidden) byId('progress-heading').focus();
  }

  function setStatus(text, detail) {
    var status = byId('progress-status');
    if (status.textContent !== text) status.textContent = text;
    var more = byId('progress-detail');
    if (more.textContent !== (detail || '')) more.textContent = detail || '';
  }

  function orderPath(suffix) {
    return '/purchase/orders/' + encodeURIComponent(state.orderId) + (suffix || '');
  }

  function poll() {
    var query = '?accountId=' + encodeURIComponent(state.accountId) +
      '&reservation=' + encodeURIComponent(state.reservation) +
      '&orderToken=' + encodeURIComponent(state.orderToken);
    api('GET', orderPath(query)).then(onProgress, function (error) {
      if (error.envelope && error.status < 500) { showServerError(error); return; }
      setTimeout(poll, 2000);
    });
  }

  function onProgress(order) {
    if (order.status === 'COMPLETE') {
      finish('Purchase complete.', order.destAmount ? 'You will receive ' + order.destAmount + ' ' + order.destCurrency + '.' : '', order.redirectTo);
      return;
    }
    if (order.status === 'FAILED') {
      var reason = order.errorMessage || 'The payment could not be completed.';
      finish('The purchase failed.', reason, order.redirectTo);
      if (!order.redirectTo) showErrors([{ message: 'The purchase failed: ' + reason }]);
      return;
    }
    if (order.status === 'RUNNING_CHECKS' && order.next) {
      if (order.next.threeDsPath) { threeDs(order.next.threeDsPath); return; }
      if (!state.codesShown) { showCodes(order.next); return; }
    }
    setStatus(order.status === 'PROCESSING' ? 'Payment accepted. Sending your purchase to your wallet…' : 'Checking your payment…');
    setTimeout(poll, 1000);
  }

  function finish(text, detail, redirectTo) {
    byId('codes').hidden = true;
    showProgress(text);
    setStatus(text, detail + (redirectTo ? ' Taking you back to the merchant…' : ''));
    if (redirectTo) setTimeout(function () { window.location.assign(redirectTo); }, 800);
  }

  function threeDs(path) {
    if (state.returned) {
      // Back from the bank without an answer yet: offer the way there again rather than loop.
      setStatus('Your bank still needs to confirm this payment.');
      var detail = byId('progress-detail');
      detail.textContent = '';
      var link = document.createElement('a');
      link.href = path;
      link.id = 'three-ds-link';
      link.textContent = 'Continue to your bank';
      detail.appendChild(link);
      return;
    }
    setStatus('Taking you to your bank to confirm the payment…');
    window.location.assign(path);
  }

  function showCodes(next) {
    state.codesShown = true;
    byId('sms-field').hidden = !next.smsNeeded;
    byId('card2fa-field').hidden = !next.card2faNeeded;
    byId('f-sms').required = !!next.smsNeeded;
    byId('f-card2fa').required = !!next.card2faNeeded;
    setStatus('Your card issuer asks for a confirmation code.');
    byId('codes').hidden = false;
    byId('codes-heading').focus();
  }

  function onCodes(event) {
    event.preventDefault();
    if (state.busy) return;
    var form = event.target;
    showErrors([]);
    var problems = [];
    var sms = !byId('sms-field').hidden;
    var card2fa = !byId('card2fa-field').hidden;
    [['f-sms', sms], ['f-card2fa', card2fa]].forEach(function (pair) {
      if (!pair[1]) return;
      var ok = /^\d{6}$/.test(value(pair[0]));
      var message = ok ? '' : 'Enter the 6 digit code.';
      setFieldError(pair[0], message);
      if (!ok) problems.push({ message: message, input: pair[0] });
    });
    if (problems.length) { showErrors(problems); return; }
    var body = {
      accountId: state.accountId,
      reservation: state.reservation,
      orderToken: state.orderToken,
      type: sms && card2fa ? 'ALL' : sms ? 'SMS' : 'CARD2FA'
    };
    if (sms) body.sms = value('f-sms');
    if (card2fa) body.card2fa = value('f-card2fa');
    state.busy = true;
    byId('submit-codes').disabled = true;
    api('POST', orderPath('/codes'), body).then(function () {
      state.busy = false;
      form.parentNode.hidden = true;
      showProgress('Checking your payment…');
      byId('progress-heading').focus();
      poll();
    }, function (error) {
      state.busy = false;
      byId('submit-codes').disabled = false;
      showServerError(error);
      var code = error.envelope && error.envelope.errorCode;
      if (code === 'validation.authorizationMaxAttempts' || code === 'validation.authorizationCodeExpired') {
        // The order has failed: follow it to its end (and the merchant's failure page).
        form.parentNode.hidden = true;
        poll();
      }
    });
  }

  // ---- start -------------------------------------------------------------------------------
  var form = byId('checkout-form');
  if (form) {
    form.addEventListener('submit', onSubmit);
    var quoteButton = byId('get-quote');
    if (quoteButton) {
      quoteButton.addEventListener('click', function () { fetchQuote(); });
      ['f-amount', 'f-sourceCurrency', 'f-destCurrency'].forEach(function (id) {
        var input = byId(id);
        if (input && !input.readOnly) input.addEventListener('change', function () { fetchQuote(); });
      });
      if (value('f-amount')) fetchQuote();
    }
    startCountdown();
  }
  var codesForm = byId('codes-form');
  if (codesForm) codesForm.addEventListener('submit', onCodes);
  if (state.returned) poll();
})();
`;
