package html_test

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// runChecks runs body (the default function's checks, with doc and dl parsed)
// in one iteration of the real runtime and requires every check to pass.
func runChecks(t *testing.T, body string) {
	t.Helper()
	h := modulestest.Start(t, map[string]string{"script.js": `
import { check } from 'k6';
import * as khtml from 'k6/html';
const { parseHTML, Selection, Element, FormElement, InputElement, AnchorElement, AreaElement, HrefElement, ButtonElement, FormFieldElement, VideoElement, MediaElement, TableHeadElement, TableSectionElement, TableDataCellElement, TableHeaderCellElement, TableCellElement, NodeType } = khtml;

const dlSrc = ` + "`" + `
<dl>
  <dt id="term-1">term 1</dt>
  <dd>definition 1-a</dd>
  <dd>definition 1-b</dd>
  <dd>definition 1-c</dd>
  <dd>definition 1-d</dd>
  <dt id="term-2">term 2</dt>
  <dd>definition 2-a</dd>
  <dd>definition 2-b</dd>
  <dd>definition 2-c</dd>
  <dt id="term-3">term 3</dt>
  <dd>definition 3-a</dd>
  <dd>definition 3-b</dd>
</dl>` + "`" + `;

function throws(f, want) {
  try { f(); } catch (e) { return String(e).includes(want); }
  return false;
}

export default function () {
  const dl = parseHTML(dlSrc);
` + body + `
}
`}, modulestest.WithLogger(slog.New(slog.NewTextHandler(tlog{t}, nil))))
	h.Iterate(t)
	checks := h.Checks()
	require.NotEmpty(t, checks)
	for name, ok := range checks {
		require.True(t, ok, name)
	}
}

// TestSelectionDocs runs the examples of k6's Selection pages and checks the
// results they print.
func TestSelectionDocs(t *testing.T) {
	t.Parallel()
	runChecks(t, `
  const sel = dl.find('dl');
  const kids = sel.children();
  check(null, {
    'children': () => kids.size() === 12 && sel.children('dt').size() === 3,
    'eq and html': () => dl.find('dt').eq(1).html() === 'term 2' && dl.find('dt').eq(-1).html() === 'term 3',
    'first and last': () => dl.find('dt').first().html() === 'term 1' && dl.find('dt').last().html() === 'term 3',
    'html of nothing is undefined': () => dl.find('nope').html() === undefined,
    'filter by selector': () => kids.filter('#term-2').text() === 'term 2',
    'filter by function': () => kids.filter(function (idx, el) { return el.text() === 'definition 3-a'; }).text() === 'definition 3-a',
    'filter by selection': () => kids.filter(dl.find('dl dt#term-1')).text() === 'term 1',
    'is': () => kids.is('dd') && !kids.is(function (i, el) { return el.text() === 'hola'; }) && kids.is(kids.first()),
    'not': () => kids.not('dt').size() === 9 && kids.not(function (i, el) { return el.text().startsWith('definition'); }).size() === 3,
    'map': () => JSON.stringify(dl.find('dt').map(function (idx, el) { return 'hola ' + el.text(); })) === '["hola term 1","hola term 2","hola term 3"]',
    'map skips null and flattens': () => JSON.stringify(dl.find('dt').map((i) => i === 1 ? null : [i, i])) === '[0,0,2,2]',
    'slice': () => kids.slice(4).size() === 8 && kids.slice(2, 4).text() === 'definition 1-bdefinition 1-c' && kids.slice(-2).text() === 'definition 3-adefinition 3-b',
    'toArray gives selections': () => kids.toArray().length === 12 && kids.toArray()[0] instanceof Selection && kids.toArray()[0].text() === 'term 1',
    'get gives elements': () => kids.get(0).innerHTML() === 'term 1' && kids.get(-1).textContent() === 'definition 3-b' && kids.get(99) === undefined && kids.get().length === 12,
    'each': () => { const seen = []; dl.find('dt').each(function (i, el) { seen.push(i + ':' + el.id()); }); return seen.join(',') === '0:term-1,1:term-2,2:term-3'; },
    'each stops on false': () => { let n = 0; kids.each(() => { n++; return n < 2 ? undefined : false; }); return n === 2; },
    'nextUntil': () => dl.find('#term-2').nextUntil('dt').size() === 3 && dl.find('#term-1').nextUntil('#term-3', 'dd').size() === 7,
    'nextUntil a selection': () => dl.find('#term-1').nextUntil(dl.find('#term-2')).size() === 4,
    'nextUntil without stop': () => dl.find('#term-3').nextUntil().size() === 2 && dl.find('#term-3').nextUntil(null, 'dt').size() === 0,
    'prevUntil': () => dl.find('#term-3').prevUntil('dt').size() === 3 && dl.find('#term-3').prevUntil('#term-1', 'dt').size() === 1,
    'parentsUntil': () => dl.find('#term-2').parentsUntil('dt').size() === 3 && dl.find('#term-3').parentsUntil('dt', 'dd').size() === 0 && dl.find('dt').first().parentsUntil('body').size() === 1,
    'contents': () => dl.find('dt').contents().text() === 'term 1term 2term 3' && dl.find('dl').contents().size() === 25,
    'size': () => dl.find('dt').size() === 3,
    'end': () => kids.filter('dt').end().size() === 12,
    'add': () => dl.find('#term-1').add('#term-3').size() === 2 && dl.find('#term-1').add(dl.find('dd')).size() === 10,
    'single': () => dl.single('dd').size() === 1 && dl.single('dd').text() === 'definition 1-a',
    'instanceof': () => dl instanceof Selection && !(dl instanceof Element) && kids.get(0) instanceof Element,
    'NodeType': () => NodeType.ElementNode === 1 && NodeType.DoctypeNode === 10 && NodeType[9] === 'DocumentNode',
    'a callback exception reaches the script': () => throws(() => kids.each(() => { throw new Error('boom'); }), 'boom') && throws(() => kids.filter(() => { throw new Error('bang'); }), 'bang') && throws(() => kids.map(() => { throw new Error('pow'); }), 'pow'),
    'abstract classes throw': () => throws(() => new Selection(), 'Illegal constructor'),
  });
`)
}

// tlog writes the run's log to the test's.
type tlog struct{ t *testing.T }

func (l tlog) Write(p []byte) (int, error) {
	l.t.Log(string(p))
	return len(p), nil
}
