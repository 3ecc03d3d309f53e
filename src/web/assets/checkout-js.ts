/**
 * The checkout page's logic, served inside /purchase/assets/checkout.js (same origin, so the CSP
 * needs no inline script) after `MESSAGES` (the catalogue's checkoutScript texts), `BRAND_RANGES`
 * `CardFormat` (card-format-js.ts) and `PageHelpers` (page-helpers-js.ts). Kept as text here so the esbuild bundle carries it without
 * a file copy step; plain ES2017, no template literals, no dependencies.
 *
 * It talks only to the page's own JSON endpoints under /purchase/. Card details are read from
 * inputs that have no `name` (a form submitted without this script sends none of them) and go
 * straight into one POST body; they are never put in a URL or stored in the browser. Refusals are
 * shown in the catalogue's words by their errorCode; a processor's code never reaches the buyer.
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
    ended: false,
    returned: data.mode === 'progress'
  };
  var loadedAt = Date.now();

  var byId = PageHelpers.byId;
  var value = PageHelpers.value;
  var setFieldError = PageHelpers.setFieldError;
  function t(key, values) {
    var text = MESSAGES[key] || key;
    values = values || {};
    if (values.partner === undefined) values.partner = data.partner || '';
    return text.replace(/\{(\w+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }
  function setText(id, text) { var el = byId(id); if (el && el.textContent !== text) el.textContent = text; }

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

  function showErrors(items) {
    PageHelpers.showErrors(items, items.length === 1 ? t('oneProblem') : t('manyProblems', { count: items.length }));
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
          var error = new Error((parsed && parsed.message) || t('requestFailed'));
          error.envelope = parsed;
          error.status = response.status;
          throw error;
        }
        return parsed;
      });
    });
  }

  /**
   * The words for a refusal: the catalogue's for declines and for a link that can no longer be
   * used (never the processor's code), the server's own for a field it names.
   */
  function refusal(error) {
    var envelope = error && error.envelope;
    if (!envelope) return { message: t('network'), ends: false };
    var code = envelope.errorCode || '';
    if (code === 'validation.cardDeclined' || code === 'validation.insufficientFunds') {
      if (envelope.problematicField === 'reservation') return { message: t('declinedLast'), ends: true, input: null };
      return { message: t('declined'), ends: false, input: 'f-card-number' };
    }
    if (code.indexOf('validation.unsupportedCardType') === 0) {
      return { message: t('cardNotAccepted'), ends: false, input: 'f-card-number' };
    }
    if (code === 'checkout.tooManyFailedAttempts') return { message: t('tooManyAttempts'), ends: false };
    if (code === 'illegalReservation' || code === 'checkout.reservationSpent') return { message: t('linkUnusable'), ends: true };
    if (code === 'validation.authorizationCodeMismatch' || code === 'validation.invalidAuthorizationCode') {
      return { message: t('wrongCode'), ends: false };
    }
    var field = envelope.problematicField;
    var input = field ? FIELD_INPUTS[field] : null;
    return { message: error.message, ends: false, input: input && byId(input) ? input : null };
  }

  function showServerError(error) {
    var said = refusal(error);
    if (said.input) setFieldError(said.input, said.message);
    showErrors([{ message: said.message, input: said.input || null }]);
    if (said.ends) deadEnd();
    return said;
  }

  /** Nothing more can happen on this link: the form goes, the way back to the partner stays. */
  function deadEnd() {
    state.ended = true;
    var form = byId('checkout-form');
    if (form) form.hidden = true;
    var cancel = byId('cancel');
    if (cancel) cancel.hidden = true;
    offerWayBack(data.failureUrl || null);
  }

  function offerWayBack(url) {
    var next = byId('next');
    var back = byId('back');
    if (url) {
      back.href = url;
      back.textContent = t('backTo');
      next.hidden = false;
    } else {
      var detail = byId('progress-detail');
      next.hidden = true;
      if (detail && !byId('progress').hidden) detail.textContent = t('returnToSite');
      else {
        var note = document.createElement('p');
        note.id = 'return-note';
        note.textContent = t('returnToSite');
        if (!byId('return-note')) next.parentNode.insertBefore(note, next);
      }
    }
  }

  // ---- card fields as typed --------------------------------------------------------------
  function onCardNumberInput(event) {
    var input = event.target;
    var before = input.value;
    var caret = input.selectionStart === null ? before.length : input.selectionStart;
    var digitsBefore = CardFormat.digits(before.slice(0, caret)).length;
    var grouped = CardFormat.groupNumber(before);
    if (grouped !== before) {
      input.value = grouped;
      var at = CardFormat.caretAfterDigits(grouped, digitsBefore);
      if (document.activeElement === input) input.setSelectionRange(at, at);
    }
    showBrand(grouped);
  }

  function showBrand(number) {
    var badge = byId('f-card-number-brand');
    if (!badge) return;
    var brand = CardFormat.brandOf(number);
    var text = brand ? t('cardBrandDetected', { brand: brand.name }) : badge.dataset.none;
    if (brand) badge.dataset.brand = brand.brand; else delete badge.dataset.brand;
    setText('f-card-number-brand', text);
  }

  function onExpiryInput(event) {
    var input = event.target;
    if (event.inputType && event.inputType.indexOf('delete') === 0) return;
    var formatted = CardFormat.formatExpiry(input.value);
    if (formatted !== input.value) input.value = formatted;
  }

  // ---- expiry countdown -------------------------------------------------------------------
  function startCountdown() {
    var span = byId('countdown');
    var total = Number(data.expiresInMs);
    if (!span || !isFinite(total)) return;
    function tick() {
      var left = Math.max(0, total - (Date.now() - loadedAt));
      var seconds = Math.floor(left / 1000);
      setText('countdown', Math.floor(seconds / 60) + ':' + ('0' + (seconds % 60)).slice(-2));
      if (left <= 0 && !state.orderId) { expire(); return; }
      if (!state.orderId) setTimeout(tick, 1000);
    }
    tick();
  }

  function expire() {
    state.expired = true;
    var pay = byId('pay');
    if (pay) pay.disabled = true;
    showErrors([{ message: t('expired') }]);
    deadEnd();
  }

  // ---- price for an unlocked reservation ----------------------------------------------------
  function quoteKey() {
    return [value('f-amount'), value('f-sourceCurrency'), value('f-destCurrency')].join('|');
  }

  function showQuote(quote) {
    var shown = quote.display;
    setText('quote-dest-amount', shown.destAmount);
    setText('quote-rate', shown.rate);
    shown.lines.forEach(function (line) { setText('bd-' + line.key, line.text); });
    setText('bd-networkFee-native', shown.networkFeeNative || '');
    setText('quote-source-amount', shown.total);
    byId('quote').hidden = false;
    setText('pay', t('pay', { amount: shown.total }));
  }

  function fetchQuote() {
    var amountOk = /^\d+(\.\d+)?$/.test(value('f-amount'));
    setFieldError('f-amount', amountOk ? '' : t('enterAmount'));
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
    ['f-card-number', function (v) { return /^\d{13,19}$/.test(CardFormat.digits(v)) && v.replace(/[\d\s-]/g, '') === ''; }, 'cardNumber'],
    ['f-card-number', function (v) { return CardFormat.brandOf(v) !== null; }, 'cardBrand'],
    ['f-card-expiry', function (v) { return CardFormat.parseExpiry(v) !== null; }, 'expiry'],
    ['f-card-cvv', function (v) { return /^\d{3}$/.test(v); }, 'cvv']
  ];

  function validateForm(form) {
    var problems = [];
    Array.prototype.forEach.call(form.querySelectorAll('input[required], select[required]'), function (input) {
      if (input.readOnly) return;
      var ok = input.value.trim() !== '' && input.checkValidity();
      var label = form.querySelector('label[for="' + input.id + '"]');
      var message = ok ? '' : t('fieldNeeded', { label: label ? label.textContent : '' });
      if (ok) {
        CARD_RULES.forEach(function (rule) {
          if (!message && rule[0] === input.id && !rule[1](input.value.trim())) message = t(rule[2]);
        });
      }
      setFieldError(input.id, message);
      if (message) problems.push({ message: message, input: input.id });
    });
    return problems;
  }

  function orderBody() {
    var expiry = CardFormat.parseExpiry(value('f-card-expiry')) || { month: '', year: '' };
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
        number: CardFormat.digits(value('f-card-number')),
        year: expiry.year,
        month: expiry.month,
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
    pay.setAttribute('aria-busy', busy ? 'true' : 'false');
    if (label) pay.textContent = label;
  }

  function onSubmit(event) {
    event.preventDefault();
    if (state.busy || state.expired || state.ended) return;
    var form = event.target;
    showErrors([]);
    var problems = validateForm(form);
    if (problems.length) { showErrors(problems); return; }
    var locked = data.quoteLocked === 'true';
    if (!locked && (!state.quote || state.quoteKey !== quoteKey())) {
      // The buyer must see the total before anything is charged.
      fetchQuote().then(function (ok) {
        if (ok) showErrors([{ message: t('checkPrice'), input: 'pay' }]);
      });
      return;
    }
    var label = byId('pay').textContent;
    setBusy(true, t('processing'));
    api('POST', '/purchase/orders', orderBody()).then(function (answer) {
      // The card fields are emptied at once: nothing of the card stays on the page.
      ['f-card-number', 'f-card-expiry', 'f-card-cvv'].forEach(function (id) { byId(id).value = ''; });
      state.busy = false;
      state.orderId = answer.orderId;
      state.orderToken = answer.orderToken;
      form.hidden = true;
      var cancel = byId('cancel');
      if (cancel) cancel.hidden = true;
      // The price is now the order's: no countdown left to watch.
      var expiry = byId('expiry');
      if (expiry) expiry.hidden = true;
      showProgress(t('checking'));
      poll();
    }, function (error) {
      setBusy(false, label);
      if (error.envelope && error.envelope.errorCode === 'validation.amountMismatch' && data.quoteLocked !== 'true') {
        fetchQuote().then(function () { showServerError(error); });
        return;
      }
      showServerError(error);
    });
  }

  // ---- progress, codes, 3-D Secure ---------------------------------------------------------
  var STEP_NAMES = ['stepCheck', 'stepConfirm', 'stepSend', 'stepDone'];

  function setStep(step) {
    var bar = byId('progress-bar');
    if (bar) bar.value = step;
    setText('progress-step', t('stepOf', { step: step, total: STEP_NAMES.length, name: t(STEP_NAMES[step - 1]) }));
    Array.prototype.forEach.call(document.querySelectorAll('#steps li'), function (li) {
      var n = Number(li.dataset.step);
      if (n === step) li.setAttribute('aria-current', 'step'); else li.removeAttribute('aria-current');
      li.className = n < step ? 'done' : '';
    });
  }

  function showProgress(text) {
    var section = byId('progress');
    var wasHidden = section.hidden;
    section.hidden = false;
    setStatus(text);
    if (wasHidden) byId('progress-heading').focus();
  }

  function setStatus(text, detail) {
    setText('progress-status', text);
    setText('progress-detail', detail || '');
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
    if (order.status === 'COMPLETE') { complete(order); return; }
    if (order.status === 'FAILED') { failed(order); return; }
    if (order.status === 'RUNNING_CHECKS' && order.next) {
      setStep(2);
      if (order.next.threeDsPath) { threeDs(order.next.threeDsPath); return; }
      if (!state.codesShown) { showCodes(order.next); return; }
    }
    if (order.status === 'PROCESSING') setStep(3);
    setStatus(order.status === 'PROCESSING' ? t('sending') : t('checking'));
    setTimeout(poll, 1000);
  }

  function complete(order) {
    byId('codes').hidden = true;
    showProgress(t('complete'));
    setStep(4);
    var receipt = order.receipt;
    setStatus(t('complete'), receipt ? t('completeDetail', { amount: receipt.received }) : '');
    if (receipt) {
      setText('r-order', receipt.orderId);
      setText('r-paid', receipt.paid);
      setText('r-fees', receipt.fees);
      setText('r-received', receipt.received);
      setText('r-dest', receipt.dest);
      if (receipt.transactionHash) {
        var cell = byId('r-tx');
        cell.textContent = '';
        var hash = document.createElement('span');
        hash.className = 'hash';
        hash.textContent = receipt.transactionHash;
        cell.appendChild(hash);
        if (receipt.explorerUrl) {
          var link = document.createElement('a');
          link.href = receipt.explorerUrl;
          link.id = 'explorer-link';
          link.rel = 'noopener noreferrer';
          link.textContent = t('viewTransaction');
          cell.appendChild(document.createElement('br'));
          cell.appendChild(link);
        }
        byId('r-tx-row').hidden = false;
      }
      byId('receipt').hidden = false;
    }
    offerWayBack(order.returnUrl);
    byId('progress-heading').focus();
  }

  function failed(order) {
    byId('codes').hidden = true;
    showProgress(t('failed'));
    setStatus(t('failed'), t('failedDetail'));
    showErrors([{ message: t('failed') + ' ' + t('failedDetail') }]);
    offerWayBack(order.returnUrl);
  }

  function threeDs(path) {
    if (state.returned) {
      // Back from the bank without an answer yet: offer the way there again rather than loop.
      setStatus(t('bankStillNeeded'));
      var detail = byId('progress-detail');
      detail.textContent = '';
      var link = document.createElement('a');
      link.href = path;
      link.id = 'three-ds-link';
      link.textContent = t('continueToBank');
      detail.appendChild(link);
      return;
    }
    setStatus(t('toBank'));
    window.location.assign(path);
  }

  function showCodes(next) {
    state.codesShown = true;
    byId('sms-field').hidden = !next.smsNeeded;
    byId('card2fa-field').hidden = !next.card2faNeeded;
    byId('f-sms').required = !!next.smsNeeded;
    byId('f-card2fa').required = !!next.card2faNeeded;
    setStatus(t('codesNeeded'));
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
      var message = ok ? '' : t('code');
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
      setStep(3);
      showProgress(t('checking'));
      byId('progress-heading').focus();
      poll();
    }, function (error) {
      state.busy = false;
      byId('submit-codes').disabled = false;
      var code = error.envelope && error.envelope.errorCode;
      if (code === 'validation.authorizationMaxAttempts' || code === 'validation.authorizationCodeExpired') {
        // The order has failed: follow it to its end and the way back to the partner.
        showErrors([{ message: t('codeExpired') }]);
        form.parentNode.hidden = true;
        poll();
        return;
      }
      showServerError(error);
    });
  }

  // ---- start -------------------------------------------------------------------------------
  var form = byId('checkout-form');
  if (form) {
    form.addEventListener('submit', onSubmit);
    var number = byId('f-card-number');
    var badge = byId('f-card-number-brand');
    if (badge) badge.dataset.none = badge.textContent;
    number.addEventListener('input', onCardNumberInput);
    byId('f-card-expiry').addEventListener('input', onExpiryInput);
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
