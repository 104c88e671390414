package html_test

import "testing"

// TestElement covers every method of Element on a document with text, comments,
// a doctype, attributes and namespaces.
func TestElement(t *testing.T) {
	t.Parallel()
	runChecks(t, `
  const doc = parseHTML('<!DOCTYPE html><html lang="fr"><body><div id="main" class="a b" data-x="1"><!-- note --><p class="b">Hello <b>world</b></p><p>two</p><svg><a xlink:href="#x"></a></svg></div><div id="other"><p class="b">Hello <b>world</b></p></div></body></html>');
  const main = doc.find('#main').get(0);
  const p = doc.find('#main p').get(0);
  const p2 = doc.find('#main p').get(1);
  const text = doc.find('#main p').contents().get(0);
  const comment = doc.find('#main').contents().get(0);
  const root = doc.get(0);
  check(null, {
    'nodeName': () => main.nodeName() === 'DIV' && text.nodeName() === '#text' && comment.nodeName() === '#comment' && root.nodeName() === '#document',
    'nodeType': () => main.nodeType() === NodeType.ElementNode && text.nodeType() === 3 && comment.nodeType() === 8 && root.nodeType() === 9 && root.firstChild().nodeType() === 10,
    'nodeValue': () => text.nodeValue() === 'Hello ' && comment.nodeValue() === ' note ' && main.nodeValue() === undefined,
    'id': () => main.id() === 'main' && p.id() === '',
    'innerHTML': () => p.innerHTML() === 'Hello <b>world</b>',
    'textContent': () => p.textContent() === 'Hello world' && main.textContent() === 'Hello worldtwo',
    'ownerDocument': () => main.ownerDocument().nodeName() === '#document' && root.ownerDocument() === undefined,
    'attributes': () => { const a = main.attributes(); return a.id.value === 'main' && a['data-x'].value === '1' && a.class.name === 'class' && a.id.ownerElement.id() === 'main' && a.id.localName() === 'id' && a.id.prefix() === '' && a.id.namespaceURI() === ''; },
    'namespaced attribute': () => { const a = doc.find('svg a').get(0).getAttributeNode('xlink:href'); return a.name === 'xlink:href' && a.localName() === 'href' && a.prefix() === 'xlink' && a.namespaceURI() === 'http://www.w3.org/1999/xlink' && a.value === '#x'; },
    'children and childNodes': () => main.children().length === 3 && main.childNodes().length === 4 && main.childElementCount() === 3,
    'first and last child': () => main.firstChild().nodeType() === 8 && main.firstElementChild().textContent() === 'Hello world' && main.lastChild().nodeName() === 'svg' && main.lastElementChild().nodeName() === 'svg' && doc.find('b').get(0).firstElementChild() === undefined,
    'siblings': () => p.nextSibling().textContent() === 'two' && p.nextElementSibling().isSameNode(p2) && p2.previousElementSibling().isSameNode(p) && p.previousSibling().nodeType() === 8 && p.previousElementSibling() === undefined && main.nextSibling().id() === 'other',
    'parents': () => p.parentElement().id() === 'main' && p.parentNode().id() === 'main' && doc.find('html').get(0).parentElement() === undefined && doc.find('html').get(0).parentNode().nodeType() === 9 && root.parentNode() === undefined,
    'classList and className': () => JSON.stringify(main.classList()) === '["a","b"]' && main.className() === 'a b' && p2.className() === undefined && p2.classList().length === 0,
    'lang is inherited': () => p.lang() === 'fr' && parseHTML('<p>x</p>').find('p').get(0).lang() === undefined,
    'toString': () => main.toString() === '[object HTMLElement]' && doc.find('a').get(0).toString() === '[object HTMLElement]' && String(text) === '[object Text]',
    'attribute queries': () => main.hasAttribute('data-x') && !main.hasAttribute('title') && main.getAttribute('class') === 'a b' && main.getAttribute('title') === undefined && main.getAttributeNode('title') === undefined && main.hasAttributes() && !doc.find('b').get(0).hasAttributes(),
    'hasChildNodes': () => main.hasChildNodes() && !doc.find('a').get(0).hasChildNodes(),
    'same and equal': () => p.isSameNode(doc.find('p.b').get(0)) && !p.isSameNode(p2) && p.isEqualNode(doc.find('#other p').get(0)) && !p.isEqualNode(p2),
    'getElementsBy': () => root.getElementsByClassName('b').length === 3 && root.getElementsByClassName('a b').length === 1 && main.getElementsByTagName('p').length === 2 && main.getElementsByTagName('*').length === 5,
    'querySelector': () => main.querySelector('p b').textContent() === 'world' && main.querySelector('table') === undefined && root.querySelectorAll('p.b').length === 2,
    'contains and matches': () => main.contains(doc.find('b').get(0)) && main.contains(main) && !p.contains(main) && main.matches('div.a') && !main.matches('p'),
    'namespaces': () => main.namespaceURI() === 'http://www.w3.org/1999/xhtml' && main.isDefaultNamespace() && doc.find('svg').get(0).namespaceURI() === 'http://www.w3.org/2000/svg' && !doc.find('svg').get(0).isDefaultNamespace(),
    'selection': () => p.selection().closest('div').attr('id') === 'main' && p.selection().size() === 1,
    'docs example': () => { const sel = parseHTML('<dl><dt id="term-1">Value term 1</dt><dt id="term-2">Value term 2</dt></dl>').find('dl').children(); const el2 = sel.get(1); return el2.nodeName() === 'DT' && el2.id() === 'term-2' && el2.textContent() === 'Value term 2'; },
    'Element and its classes': () => main instanceof Element && !(main instanceof AnchorElement),
  });
`)
}
