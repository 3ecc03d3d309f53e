import { html, type SafeHtml } from '../web/index.ts';
import { MAX_QUERY_LENGTH, type SearchResult } from './search.ts';
import { link, table, text } from './view-kit.ts';

/** The search page: one box, and what it found linking to each detail page. */
export function searchMain(query: string, results: SearchResult[] | undefined): SafeHtml {
  const found =
    results === undefined
      ? html``
      : html`<h2>Results</h2>
<p role="status">${results.length === 0 ? `Nothing matches “${query}”.` : `${results.length} found for “${query}”.`}</p>
${table(
  'Search results',
  ['Kind', 'Id', 'Summary'],
  results.map((r) => [text(r.kind), link(r.href, r.id), text(r.summary)]),
  '',
)}`;
  return html`<h1>Search</h1>
<div class="panel">
<form class="form" method="get" action="/console/search" role="search">
<div class="field"><label for="q">Id, e-mail or transaction hash</label>
<input id="q" name="q" type="search" value="${query}" maxlength="${MAX_QUERY_LENGTH}" autocomplete="off" spellcheck="false" required>
<span class="hint">AC_, US_, WO_, TF_, WA_, PA_, CB_ ids, a reservation id, an API key (AK-…), an e-mail or a chain transaction hash. Exact matches only.</span></div>
<div class="actions"><button type="submit">Search</button></div>
</form>
</div>
${found}`;
}
