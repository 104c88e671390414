package html_test

import (
	"testing"

	"github.com/grafana/sobek"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/html"
)

// TestFormValues covers val, data and the serializations, with the results k6's
// documentation prints.
func TestFormValues(t *testing.T) {
	t.Parallel()
	runChecks(t, `
  const doc = parseHTML(`+"`"+`
    <input id="text_input" type="text" value="input-text-value"/>
    <select id="select_one"><option value="not this option">no</option><option value="yes this option" selected>yes</option></select>
    <select id="select_text"><option>no text</option><option selected>yes text</option></select>
    <select id="select_multi" multiple><option>option 1</option><option selected>option 2</option><option selected>option 3</option></select>
    <select id="select_none"><option value="first">1</option><option>2</option></select>
    <textarea id="textarea" multiple>Lorem ipsum dolor sit amet</textarea>
    <input id="cb" type="checkbox"><button id="btn" value="b">B</button><div id="div">d</div>
    <h1 data-test-id="data-value" data-n="42" data-t="true" data-o='{"a":1}' data-s="007">Hola</h1>
    <form id="f"><input name="username"><input name="a b" value="x&y=z é"><input type="checkbox" name="c1" value="on1" checked><input type="checkbox" name="c2">
      <input type="radio" name="r" value="r1"><input type="radio" name="r" value="r2" checked><input name="dis" disabled value="no">
      <input type="submit" name="sub" value="Go"><input type="file" name="file"><input name="" value="noname">
      <select name="m" multiple><option selected>m1</option><option selected>m2</option></select><textarea name="t">l1
l2</textarea></form>`+"`"+`);
  check(null, {
    'val of an input': () => doc.find('#text_input').val() === 'input-text-value',
    'val of an option': () => doc.find('#select_one option[selected]').val() === 'yes this option',
    'val of a select': () => doc.find('#select_one').val() === 'yes this option' && doc.find('#select_text').val() === 'yes text' && doc.find('#select_none').val() === 'first',
    'val of a multiple select': () => JSON.stringify(doc.find('#select_multi').val()) === '["option 2","option 3"]',
    'val of a textarea': () => doc.find('#textarea').val() === 'Lorem ipsum dolor sit amet',
    'val of others': () => doc.find('#cb').val() === 'on' && doc.find('#btn').val() === 'b' && doc.find('#div').val() === undefined && doc.find('#nothing').val() === undefined,
    'data by key': () => doc.find('h1').data('test-id') === 'data-value' && doc.find('h1').data('testId') === 'data-value' && doc.find('h1').data('nope') === undefined,
    'data converts': () => doc.find('h1').data('n') === 42 && doc.find('h1').data('t') === true && doc.find('h1').data('o').a === 1 && doc.find('h1').data('s') === '007',
    'data without a key': () => { const d = doc.find('h1').data(); return d.testId === 'data-value' && d.testID === undefined && d.n === 42; },
    'data of nothing': () => doc.find('#nothing').data('x') === undefined,
    'attr': () => doc.find('#text_input').attr('type') === 'text' && doc.find('#text_input').attr('missing') === undefined && doc.find('#nothing').attr('id') === undefined,
    'docs serialize': () => parseHTML('<form><input name="username"></form>').find('form').serialize() === 'username=',
    'docs serializeArray': () => JSON.stringify(parseHTML('<form><input name="username"></form>').find('form').serializeArray()) === '[{"name":"username","value":""}]',
    'docs serializeObject': () => JSON.stringify(parseHTML('<form><input name="username"></form>').find('form').serializeObject()) === '{"username":""}',
    'serializeArray of a form': () => JSON.stringify(doc.find('#f').serializeArray()) === JSON.stringify([
      {name: 'username', value: ''}, {name: 'a b', value: 'x&y=z é'}, {name: 'c1', value: 'on1'}, {name: 'r', value: 'r2'},
      {name: 'm', value: 'm1'}, {name: 'm', value: 'm2'}, {name: 't', value: 'l1\r\nl2'}]),
    'serialize encodes as jQuery': () => doc.find('#f').serialize() === 'username=&a+b=x%26y%3Dz+%C3%A9&c1=on1&r=r2&m=m1&m=m2&t=l1%0D%0Al2',
    'serializeObject': () => { const o = doc.find('#f').serializeObject(); return o.username === '' && o.m === 'm2' && o.r === 'r2' && !('sub' in o) && !('dis' in o); },
    'serialize of controls': () => doc.find('#f input[name=username], #f textarea').serialize() === 'username=&t=l1%0D%0Al2',
  });
`)
}

// TestSubmitAndLink covers html.Submit and html.Link (Response.submitForm and
// clickLink): the form's method and action, the submit button, overridden fields,
// <base href>, and the errors naming what is missing.
func TestSubmitAndLink(t *testing.T) {
	t.Parallel()
	rt := sobek.New()
	page := "http://site.test/dir/page.html"
	doc := html.Document(rt, `<form id="a" action="post.php" method="post"><input name="x" value="1"><input name="x" value="2">
<input type="submit" name="go" value="A"><input type="submit" name="go" value="B"></form>
<form id="b" action="?q=old#frag"><input name="y" value="é ü"></form><a id="l" href="../up.html">up</a><a name="nohref">x</a>`, page)
	sub, err := html.Submit(doc, page, html.SubmitOptions{FormSelector: "#a", Fields: []html.Field{{Name: "x", Value: "9"}, {Name: "z", Value: "new"}}})
	require.NoError(t, err)
	require.Equal(t, &html.Submission{Method: "POST", URL: "http://site.test/dir/post.php",
		Fields: []html.Field{{"x", "9"}, {"go", "A"}, {"z", "new"}}}, sub)
	sub, err = html.Submit(doc, page, html.SubmitOptions{FormSelector: "#a", SubmitValue: "B"})
	require.NoError(t, err)
	require.Equal(t, []html.Field{{"x", "1"}, {"x", "2"}, {"go", "B"}}, sub.Fields)
	sub, err = html.Submit(doc, page, html.SubmitOptions{FormSelector: "#b"})
	require.NoError(t, err)
	require.Equal(t, &html.Submission{Method: "GET", URL: "http://site.test/dir/page.html?y=%C3%A9+%C3%BC#frag"}, sub)
	_, err = html.Submit(doc, page, html.SubmitOptions{FormSelector: "#c"})
	require.EqualError(t, err, `submitForm: no form matches "#c" in the response of `+page)

	u, err := html.Link(doc, page, "")
	require.NoError(t, err)
	require.Equal(t, "http://site.test/up.html", u)
	_, err = html.Link(doc, page, "a[name]")
	require.EqualError(t, err, `clickLink: the element "a[name]" matches has no href`)
	based := html.Document(rt, `<head><base href="https://cdn.test/root/"></head><a href="x">x</a>`, page)
	u, err = html.Link(based, page, "")
	require.NoError(t, err)
	require.Equal(t, "https://cdn.test/root/x", u)
}
