package html_test

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// TestClasses checks each class k6/html exports: an element of its tag is an
// instance of it and of its ancestors, no other element is, and none can be
// constructed.
func TestClasses(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{"script.js": `
import { check } from 'k6';
import * as khtml from 'k6/html';

const tags = {
  AnchorElement: 'a', AreaElement: 'area', AudioElement: 'audio', BaseElement: 'base', ButtonElement: 'button',
  CanvasElement: 'canvas', DataElement: 'data', DataListElement: 'datalist', DelElement: 'del', EmbedElement: 'embed',
  FieldSetElement: 'fieldset', FormElement: 'form', IFrameElement: 'iframe', ImageElement: 'img', InputElement: 'input',
  InsElement: 'ins', KeygenElement: 'keygen', LabelElement: 'label', LegendElement: 'legend', LiElement: 'li',
  LinkElement: 'link', MapElement: 'map', MetaElement: 'meta', MeterElement: 'meter', ObjectElement: 'object',
  OListElement: 'ol', OptGroupElement: 'optgroup', OptionElement: 'option', OutputElement: 'output', ParamElement: 'param',
  PreElement: 'pre', ProgressElement: 'progress', QuoteElement: 'q', ScriptElement: 'script', SelectElement: 'select',
  SourceElement: 'source', StyleElement: 'style', TableBodyElement: 'tbody', TableColElement: 'col',
  TableDataCellElement: 'td', TableElement: 'table', TableFootElement: 'tfoot', TableHeadElement: 'thead',
  TableHeaderCellElement: 'th', TableRowElement: 'tr', TextAreaElement: 'textarea', TimeElement: 'time',
  TitleElement: 'title', TrackElement: 'track', UListElement: 'ul', VideoElement: 'video',
};
const parents = {
  HrefElement: ['a', 'area'], MediaElement: ['audio', 'video'], FormFieldElement: ['button', 'input'], ModElement: ['del', 'ins'],
  TableSectionElement: ['tbody', 'tfoot', 'thead'], TableCellElement: ['td', 'th'],
};

function make(tag) {
  const wrap = { td: 'table><tr', th: 'table><tr', tr: 'table><tbody', tbody: 'table', thead: 'table', tfoot: 'table', col: 'table><colgroup', option: 'select', optgroup: 'select', area: 'map', legend: 'fieldset', li: 'ul' }[tag];
  const src = wrap ? '<' + wrap + '><' + tag + '>' : '<' + tag + '>';
  return khtml.parseHTML('<html><head></head><body>' + src + '</body></html>').find(tag).get(0);
}

export default function () {
  const results = {};
  for (const [cls, tag] of Object.entries(tags)) {
    const el = make(tag);
    results[cls] = el !== undefined && el instanceof khtml[cls] && el instanceof khtml.Element && !(el instanceof khtml.Selection) &&
      Object.keys(tags).filter((other) => el instanceof khtml[other]).join() === cls &&
      el.toString() === '[object HTML' + cls + ']';
  }
  for (const [cls, members] of Object.entries(parents)) {
    results[cls] = Object.values(tags).filter((tag) => make(tag) instanceof khtml[cls]).sort().join() === members.join();
  }
  const attr = make('a').attributes();
  const withAttr = khtml.parseHTML('<a href="x">').find('a').get(0).getAttributeNode('href');
  results.Attribute = withAttr instanceof khtml.Attribute && !(make('a') instanceof khtml.Attribute) && Object.keys(attr).length === 0;
  results.Selection = khtml.parseHTML('<p>') instanceof khtml.Selection && !(make('p') instanceof khtml.Selection);
  results.Element = make('div') instanceof khtml.Element && !(make('div') instanceof khtml.FormElement);
  results.NodeType = khtml.NodeType.TextNode === 3 && khtml.NodeType.CommentNode === 8 && khtml.NodeType[1] === 'ElementNode';
  results.parseHTML = khtml.parseHTML('<p>x</p>').find('p').text() === 'x';
  const abstract = Object.keys(khtml).filter((k) => k !== 'parseHTML' && k !== 'NodeType' && k !== 'default');
  results.abstract = abstract.length === 60 && abstract.every((k) => { try { new khtml[k](); return false; } catch (e) { return String(e).includes('Illegal constructor'); } });
  check(null, results);
}
`}, modulestest.WithLogger(slog.New(slog.NewTextHandler(tlog{t}, nil))))
	h.Iterate(t)
	checks := h.Checks()
	require.Len(t, checks, 51+6+6)
	for name, ok := range checks {
		require.True(t, ok, name)
	}
}
