/**
 * The card field helpers of the checkout script, as plain ES2017 text: the script asset starts
 * with it, and the unit tests run this same text (test/checkout/card-format.test.ts), so what is
 * tested is what the browser runs. `BRAND_RANGES` is defined before it from the server's BIN
 * table (card-brands.ts).
 */
export const CARD_FORMAT_JS = String.raw`var CardFormat = (function () {
  'use strict';
  function digits(text) { return String(text).replace(/\D/g, ''); }

  /** The brand of a number by its first four digits, or null while fewer are typed or none fits. */
  function brandOf(number) {
    var d = digits(number);
    if (d.length < 1) return null;
    var candidates = BRAND_RANGES.filter(function (range) {
      var from = String(range.from).slice(0, d.length);
      var to = String(range.to).slice(0, d.length);
      var head = d.slice(0, 4);
      return d.length >= 4 ? Number(head) >= range.from && Number(head) <= range.to : head >= from && head <= to;
    });
    var names = candidates.map(function (range) { return range.brand; });
    var unique = names.filter(function (name, index) { return names.indexOf(name) === index; });
    if (unique.length !== 1) return null;
    return { brand: candidates[0].brand, name: candidates[0].name };
  }

  /** Groups of four as typed, at most 19 digits: "4111 1111 1111 1111". */
  function groupNumber(text) {
    var d = digits(text).slice(0, 19);
    return d.replace(/(\d{4})(?=\d)/g, '$1 ');
  }

  /** Where the caret belongs after regrouping: after the same count of digits as before. */
  function caretAfterDigits(grouped, digitCount) {
    var seen = 0;
    for (var i = 0; i < grouped.length; i += 1) {
      if (seen === digitCount) return i;
      if (/\d/.test(grouped[i])) seen += 1;
    }
    return grouped.length;
  }

  /** MM/YY as typed: the slash comes by itself after the month ("1230" reads "12/30"). */
  function formatExpiry(text) {
    var raw = String(text);
    var d = digits(raw).slice(0, 6);
    if (d.length === 1 && Number(d) > 1) d = '0' + d;
    if (d.length <= 2) return d.length === 2 && /\//.test(raw) ? d + '/' : d;
    return d.slice(0, 2) + '/' + d.slice(2);
  }

  /**
   * MM/YY or MM/YYYY (spaces allowed around the slash, or none at all) as the month and the
   * four-digit year the server needs; null when it is neither.
   */
  function parseExpiry(text) {
    var match = /^\s*(\d{2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(String(text));
    if (!match) return null;
    var month = Number(match[1]);
    if (month < 1 || month > 12) return null;
    var year = match[2].length === 2 ? '20' + match[2] : match[2];
    return { month: match[1], year: year };
  }

  return {
    digits: digits,
    brandOf: brandOf,
    groupNumber: groupNumber,
    caretAfterDigits: caretAfterDigits,
    formatExpiry: formatExpiry,
    parseExpiry: parseExpiry
  };
})();
`;
