package html_test

import "testing"

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
