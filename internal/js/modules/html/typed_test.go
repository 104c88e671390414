package html_test

import "testing"

// TestTypedElements covers the methods of each typed element @types/k6 declares.
func TestTypedElements(t *testing.T) {
	t.Parallel()
	runChecks(t, `
  const doc = parseHTML(`+"`"+`<html><head><title> The title </title><link rel="stylesheet alternate" href="/s.css"><style type="text/css">p{}</style><script>var x = 1;</script></head><body>
<a id="a1" href="http://username:password@example.com:8080/path/x?q=1#frag" rel="prev next">Six</a>
<a id="a2" href="/rel?b=2">Rel</a>
<form id="f" method="POST" action="/go" enctype="multipart/form-data" target="_blank">
  <fieldset id="fs"><legend id="lg">L</legend><input id="i1" name="user" value="bob"></fieldset>
  <label id="l1" for="i2">Pass</label><input id="i2" type="password" name="pass">
  <label id="l2">Wrapped <textarea id="ta" name="msg">héllo</textarea></label>
  <button id="b1" name="go" value="yes" formaction="/other" formmethod="GET" formnovalidate formtarget="_self">Go</button>
  <select id="s1" name="pick"><option value="a">A</option><optgroup disabled><option id="ob">B</option></optgroup><option id="oc" selected label="See"> C  c </option></select>
  <select id="s2" multiple size="3"><option selected>x</option><option selected>y</option><option>z</option></select>
  <output id="o1" name="out">42</output><object id="ob1"></object><keygen id="k1" name="key">
  <meter id="m1"></meter><progress id="p1" value="30" max="60"></progress><progress id="p2"></progress>
</form>
<input id="outside" form="f" name="extra" value="1">
<canvas id="cv" width="640"></canvas>
<datalist id="dl1"><option value="one"><option value="two"></datalist>
<map name="m"><area id="ar" href="https://example.org/area" alt=""></map><img id="im" usemap="#m" src="x.png">
<video id="v"><track kind="captions"><track kind="chapters"></video><audio id="au"></audio>
<table id="t"><caption>Cap</caption><thead><tr id="hr"><th>H1</th><th>H2</th></tr></thead>
<tbody><tr id="r1"><td>1</td><td id="c12" colspan="2" headers="h1">2</td></tr><tr id="r2"><td>3</td><td>4</td></tr></tbody>
<tfoot><tr id="fr"><td>F</td></tr></tfoot><colgroup><col id="col" span="2"></colgroup></table>
</body></html>`+"`"+`);
  const el = (id) => doc.find('#' + id).get(0);
  const ids = (els) => els.map((e) => e.id()).join(',');
  check(null, {
    'AnchorElement': () => { const a = el('a1'); return a instanceof AnchorElement && a instanceof HrefElement && a.hash() === '#frag' && a.host() === 'example.com:8080' && a.hostname() === 'example.com' && a.origin() === 'http://example.com:8080' && a.username() === 'username' && a.password() === 'password' && a.pathname() === '/path/x' && a.port() === '8080' && a.protocol() === 'http:' && a.search() === '?q=1' && a.text() === 'Six' && JSON.stringify(a.relList()) === '["prev","next"]' && a.toString() === '[object HTMLAnchorElement]'; },
    'AnchorElement of a relative link': () => { const a = el('a2'); return a.pathname() === '/rel' && a.search() === '?b=2' && a.host() === '' && a.hash() === ''; },
    'AreaElement': () => el('ar') instanceof AreaElement && el('ar').hostname() === 'example.org' && el('ar').protocol() === 'https:' && el('ar').port() === '',
    'FormElement': () => { const f = el('f'); return f instanceof FormElement && f.method() === 'post' && f.length() === 11 && ids(f.elements()).startsWith('fs,i1,i2,ta,b1,s1,s2,o1,ob1,k1') && ids(f.elements()).endsWith(',outside'); },
    'FieldSetElement': () => { const fs = el('fs'); return fs.type() === 'fieldset' && ids(fs.elements()) === 'i1' && fs.form().id() === 'f' && fs.validity() === undefined; },
    'LegendElement': () => el('lg').form().id() === 'f',
    'InputElement': () => { const i = el('i1'); return i instanceof InputElement && i instanceof FormFieldElement && i.form().id() === 'f' && i.name() === 'user' && i.formMethod() === 'post' && i.formAction() === '/go' && i.formEnctype() === 'multipart/form-data' && i.formTarget() === '_blank' && !i.formNoValidate() && i.labels().length === 0 && el('outside').form().id() === 'f'; },
    'ButtonElement': () => { const b = el('b1'); return b instanceof ButtonElement && b.value() === 'yes' && b.name() === 'go' && b.formAction() === '/other' && b.formMethod() === 'get' && b.formNoValidate() && b.formTarget() === '_self'; },
    'LabelElement': () => el('l1').control().id() === 'i2' && el('l1').form().id() === 'f' && el('l2').control().id() === 'ta' && ids(el('i2').labels()) === 'l1',
    'TextAreaElement': () => el('ta').length() === 5 && el('ta').form().id() === 'f' && ids(el('ta').labels()) === 'l2',
    'SelectElement': () => { const s = el('s1'); return s.length() === 3 && s.options().length === 3 && s.selectedIndex() === 2 && ids(s.selectedOptions()) === 'oc' && s.value() === ' C  c ' && s.type() === 'select-one' && s.size() === 0 && s.form().id() === 'f' && s.labels().length === 0; },
    'multiple SelectElement': () => { const s = el('s2'); return s.type() === 'select-multiple' && s.size() === 3 && s.selectedOptions().length === 2 && s.value() === 'x' && s.selectedIndex() === 0; },
    'OptionElement': () => { const b = el('ob'), c = el('oc'); return b.disabled() && !c.disabled() && b.index() === 1 && c.index() === 2 && c.label() === 'See' && b.label() === 'B' && c.text() === 'C c' && c.value() === ' C  c ' && b.value() === 'B' && c.form().id() === 'f'; },
    'OutputElement': () => el('o1').value() === '42' && el('o1').defaultValue() === '42' && el('o1').form().id() === 'f' && el('o1').labels().length === 0,
    'ObjectElement and KeygenElement': () => el('ob1').form().id() === 'f' && el('k1').form().id() === 'f' && el('k1').labels().length === 0,
    'MeterElement': () => el('m1').labels().length === 0 && el('m1') instanceof Element,
    'ProgressElement': () => el('p1').value() === 30 && el('p1').max() === 60 && el('p1').position() === 0.5 && el('p2').position() === -1 && el('p2').max() === 1 && el('p1').labels().length === 0,
    'CanvasElement': () => el('cv').width() === 640 && el('cv').height() === 150,
    'DataListElement': () => el('dl1').options().length === 2,
    'MapElement': () => { const m = doc.find('map').get(0); return ids(m.areas()) === 'ar' && ids(m.images()) === 'im'; },
    'MediaElement': () => el('v').textTracks().length === 2 && el('au').textTracks().length === 0 && el('v') instanceof VideoElement && el('v') instanceof MediaElement,
    'TableElement': () => { const t = el('t'); return t.caption().textContent() === 'Cap' && t.tHead().nodeName() === 'THEAD' && t.tFoot().nodeName() === 'TFOOT' && t.tBodies().length === 1 && ids(t.rows()) === 'hr,r1,r2,fr'; },
    'TableSectionElement': () => doc.find('tbody').get(0).rows().length === 2 && doc.find('thead').get(0) instanceof TableHeadElement && doc.find('tbody').get(0) instanceof TableSectionElement,
    'TableRowElement': () => el('r2').rowIndex() === 2 && el('r2').sectionRowIndex() === 1 && el('fr').rowIndex() === 3 && el('hr').cells().length === 2,
    'TableCellElement': () => el('c12').cellIndex() === 1 && el('c12').colSpan() === 2 && el('c12').rowSpan() === 1 && el('c12').headers() === 'h1' && el('c12') instanceof TableDataCellElement && doc.find('th').get(0) instanceof TableHeaderCellElement && doc.find('th').get(0) instanceof TableCellElement,
    'TableColElement': () => el('col').span() === 2,
    'TitleElement and ScriptElement': () => doc.find('title').get(0).text() === ' The title ' && doc.find('script').get(0).text() === 'var x = 1;',
    'StyleElement and LinkElement': () => doc.find('style').get(0).type() === 'text/css' && JSON.stringify(doc.find('link').get(0).relList()) === '["stylesheet","alternate"]',
  });
`)
}
