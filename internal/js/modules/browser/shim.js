// k6/browser's objects over the native bridge (bridge.go). This file evaluates to a
// function of (native, devices) returning the module's exports.
(function (native, devicesData) {
	'use strict';

	// ---- In-page library: selectors, waiting, element state and actions. ----
	// It runs in the page (Runtime.callFunctionOn) and is installed once per document.
	const LIB = String(function () {
		const norm = (s) => String(s == null ? '' : s).replace(/\s+/g, ' ').trim();
		const matches = (text, want, exact) => {
			if (want instanceof RegExp) return want.test(text);
			const t = norm(text), w = norm(want);
			return exact ? t === w : t.toLowerCase().includes(w.toLowerCase());
		};
		const decode = (w) => (w && typeof w === 'object' && w.re !== undefined ? new RegExp(w.re, w.flags) : w);
		const implicitRole = (el) => {
			const t = el.tagName.toLowerCase();
			const type = (el.getAttribute('type') || '').toLowerCase();
			switch (t) {
				case 'a': return el.hasAttribute('href') ? 'link' : '';
				case 'button': return 'button';
				case 'input':
					if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
					if (type === 'checkbox') return 'checkbox';
					if (type === 'radio') return 'radio';
					if (type === 'range') return 'slider';
					if (type === 'number') return 'spinbutton';
					if (type === 'search') return 'searchbox';
					if (type === 'hidden') return '';
					return 'textbox';
				case 'textarea': return 'textbox';
				case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
				case 'option': return 'option';
				case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
				case 'img': return 'img';
				case 'ul': case 'ol': return 'list';
				case 'li': return 'listitem';
				case 'table': return 'table';
				case 'tr': return 'row';
				case 'td': return 'cell';
				case 'th': return 'columnheader';
				case 'form': return 'form';
				case 'nav': return 'navigation';
				case 'main': return 'main';
				case 'dialog': return 'dialog';
				case 'p': return 'paragraph';
			}
			return '';
		};
		const role = (el) => (el.getAttribute('role') || implicitRole(el)).split(' ')[0];
		const labelText = (el) => {
			const parts = [];
			if (el.labels) for (const l of el.labels) parts.push(l.textContent);
			const by = el.getAttribute('aria-labelledby');
			if (by) for (const id of by.split(/\s+/)) { const x = document.getElementById(id); if (x) parts.push(x.textContent); }
			return norm(parts.join(' '));
		};
		const accName = (el) => {
			const aria = el.getAttribute('aria-label');
			if (aria) return norm(aria);
			const lab = labelText(el);
			if (lab) return lab;
			if (el.tagName === 'IMG') return norm(el.getAttribute('alt'));
			if (el.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(el.type)) return norm(el.value || (el.type === 'submit' ? 'Submit' : ''));
			if (['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) return norm(el.getAttribute('title') || el.getAttribute('placeholder'));
			return norm(el.textContent || el.getAttribute('title'));
		};
		// deep is every element under root, open shadow roots included (Playwright's
		// selectors pierce them).
		const deep = (root, css) => {
			const out = [];
			const walk = (r) => {
				for (const el of r.querySelectorAll('*')) {
					if (css === undefined || el.matches(css)) out.push(el);
					if (el.shadowRoot) walk(el.shadowRoot);
				}
			};
			walk(root.querySelectorAll ? root : document);
			return out;
		};
		const all = (root) => deep(root);
		const within = (root, el) => root === el || (root.contains && root.contains(el));
		const byXPath = (root, xp) => {
			const out = [];
			const r = document.evaluate(xp, root, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
			for (let i = 0; i < r.snapshotLength; i++) if (r.snapshotItem(i).nodeType === 1) out.push(r.snapshotItem(i));
			return out;
		};
		// textOf is the text a text selector matches: a button-like input's value (as
		// in Playwright: getByText('Go!') finds <input type="submit" value="Go!">),
		// else the text content without that of scripts, styles and templates (a
		// page's inline script is not text a user reads).
		const unread = ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'];
		const textOf = (el) => {
			if (el.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(el.type)) return el.value;
			let out = '';
			const walk = (n) => {
				for (const c of n.childNodes) {
					if (c.nodeType === 3) out += c.data;
					else if (c.nodeType === 1 && !unread.includes(c.tagName)) walk(c);
				}
			};
			walk(el);
			return out;
		};
		const smallest = (els) => els.filter((el) => !els.some((o) => o !== el && el.contains(o)));
		const step = (roots, s) => {
			const out = [];
			const add = (el) => { if (!out.includes(el)) out.push(el); };
			if (s.nth !== undefined) {
				const i = s.nth < 0 ? roots.length + s.nth : s.nth;
				return roots[i] ? [roots[i]] : [];
			}
			if (s.hasText !== undefined) return roots.filter((el) => matches(textOf(el), decode(s.hasText), false));
			if (s.hasNotText !== undefined) return roots.filter((el) => !matches(textOf(el), decode(s.hasNotText), false));
			if (s.frame) {
				for (const el of roots) if (el.contentDocument) add(el.contentDocument);
				return out;
			}
			for (const root of roots) {
				let found = [];
				if (s.css !== undefined) {
					found = Array.from(root.querySelectorAll(s.css));
					if (found.length === 0) found = deep(root, s.css);
				}
				else if (s.xpath !== undefined) found = byXPath(root, s.xpath);
				else if (s.text !== undefined) {
					const w = decode(s.text);
					found = smallest(all(root).filter((el) => !['HEAD', 'TITLE', ...unread].includes(el.tagName) && matches(textOf(el), w, s.exact)));
				} else if (s.role !== undefined) {
					found = all(root).filter((el) => role(el) === s.role && (s.name === undefined || matches(accName(el), decode(s.name), s.exact)));
				} else if (s.label !== undefined) {
					const w = decode(s.label);
					found = all(root).filter((el) => (el.labels || el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')) &&
						matches(el.getAttribute('aria-label') || labelText(el), w, s.exact));
				} else if (s.attr !== undefined) {
					const w = decode(s.value);
					found = all(root).filter((el) => el.hasAttribute(s.attr) && (s.attr === 'data-testid' ? (w instanceof RegExp ? w.test(el.getAttribute(s.attr)) : el.getAttribute(s.attr) === w) : matches(el.getAttribute(s.attr), w, s.exact)));
				}
				for (const el of found) if (within(root, el) || root.nodeType === 9 || root.nodeType === 11 || el.getRootNode() !== document) add(el);
			}
			return out;
		};
		const resolve = (steps, root) => {
			let els = [root || document];
			for (const s of steps) els = step(els, s);
			return els.filter((e) => e && e.nodeType === 1);
		};
		const visible = (el) => {
			if (!el || !el.isConnected) return false;
			const st = getComputedStyle(el);
			if (st.visibility === 'hidden' || st.display === 'none') return false;
			const r = el.getBoundingClientRect();
			return r.width > 0 && r.height > 0;
		};
		const enabled = (el) => !(el.disabled || el.closest('fieldset[disabled]') || el.getAttribute('aria-disabled') === 'true');
		const editable = (el) => enabled(el) && !el.readOnly && !el.hasAttribute('readonly') && el.getAttribute('aria-readonly') !== 'true';
		const checked = (el) => {
			if (el.type === 'checkbox' || el.type === 'radio') return el.checked;
			const a = el.getAttribute('aria-checked');
			if (a === 'true' || a === 'false') return a === 'true';
			throw new Error('Not a checkbox or radio button');
		};
		const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
		// waitFor resolves with the first element in state (attached, visible, hidden,
		// detached; hidden and detached resolve with null), polling until timeout ms.
		const waitFor = async (steps, root, state, timeout, strict, desc) => {
			const end = Date.now() + timeout;
			for (;;) {
				const els = resolve(steps, root);
				if (strict && els.length > 1) throw new Error(`strict mode violation: ${desc} resolved to ${els.length} elements`);
				const el = els[0];
				if (state === 'attached' && el) return el;
				if (state === 'visible' && el && visible(el)) return el;
				if (state === 'hidden' && (!el || !visible(el))) return null;
				if (state === 'detached' && !el) return null;
				if (Date.now() >= end) throw new Error(`waiting for ${desc} to be ${state}: timeout ${timeout}ms exceeded`);
				await sleep(Math.min(50, Math.max(1, end - Date.now())));
			}
		};
		const point = (el) => {
			el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
			const r = el.getBoundingClientRect();
			return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
		};
		const setValue = (el, v) => {
			const proto = el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : el.tagName === 'SELECT' ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
			const d = Object.getOwnPropertyDescriptor(proto, 'value');
			if (d && d.set) d.set.call(el, v); else el.value = v;
			el.dispatchEvent(new Event('input', { bubbles: true }));
			el.dispatchEvent(new Event('change', { bubbles: true }));
		};
		const actions = {
			point: (el) => point(el),
			fill: (el, v) => {
				if (!el.isContentEditable && !['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) throw new Error('Element is not an <input>, <textarea> or [contenteditable] element');
				if (!editable(el)) throw new Error('element is not editable');
				el.focus();
				if (el.isContentEditable) { el.textContent = v; el.dispatchEvent(new Event('input', { bubbles: true })); return null; }
				setValue(el, v);
				return null;
			},
			clear: (el) => actions.fill(el, ''),
			focus: (el) => { el.focus(); return null; },
			focusEnd: (el) => {
				el.focus();
				if (typeof el.setSelectionRange === 'function' && typeof el.value === 'string') { try { el.setSelectionRange(el.value.length, el.value.length); } catch (e) { /* not a text input */ } }
				return null;
			},
			textContent: (el) => el.textContent,
			innerText: (el) => el.innerText,
			innerHTML: (el) => el.innerHTML,
			getAttribute: (el, n) => el.getAttribute(n),
			inputValue: (el) => {
				if (!['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) throw new Error('Node is not an <input>, <textarea> or <select> element');
				return el.value;
			},
			isChecked: (el) => checked(el),
			isEnabled: (el) => enabled(el),
			isDisabled: (el) => !enabled(el),
			isEditable: (el) => editable(el),
			isVisible: (el) => visible(el),
			isHidden: (el) => !visible(el),
			checked: (el) => checked(el),
			selectOption: (el, vals) => {
				if (el.tagName !== 'SELECT') throw new Error('Element is not a <select> element');
				const opts = Array.from(el.options);
				const picked = [];
				for (const v of vals) {
					const o = opts.find((o) => (v.value !== undefined ? o.value === v.value : v.label !== undefined ? o.label === v.label : v.index !== undefined ? o.index === v.index : o.value === v.any || o.label === v.any));
					if (o) picked.push(o);
					if (!el.multiple) break;
				}
				for (const o of opts) o.selected = picked.includes(o);
				el.dispatchEvent(new Event('input', { bubbles: true }));
				el.dispatchEvent(new Event('change', { bubbles: true }));
				return picked.map((o) => o.value);
			},
			selectText: (el) => { if (el.select) el.select(); else { const r = document.createRange(); r.selectNodeContents(el); const s = getSelection(); s.removeAllRanges(); s.addRange(r); } return null; },
			boundingBox: (el) => { const r = el.getBoundingClientRect(); return { x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height }; },
			dispatchEvent: (el, type, init) => {
				const Ctor = /^(click|dblclick|mouse)/.test(type) ? MouseEvent : /^key/.test(type) ? KeyboardEvent : /^focus|blur/.test(type) ? FocusEvent : Event;
				el.dispatchEvent(new Ctor(type, Object.assign({ bubbles: true, cancelable: true, composed: true }, init || {})));
				return null;
			},
			scrollIntoView: (el) => { el.scrollIntoView({ block: 'center', behavior: 'instant' }); return null; },
		};
		// The states an action needs, as Playwright's actionability checks.
		const needs = { point: ['visible', 'enabled'], fill: ['visible', 'enabled'], clear: ['visible', 'enabled'], selectOption: ['attached'], focusEnd: ['visible'] };
		const run = async (steps, root, action, args, timeout, strict, desc) => {
			const need = needs[action] || ['attached'];
			const end = Date.now() + timeout;
			for (;;) {
				const el = await waitFor(steps, root, need.includes('visible') ? 'visible' : 'attached', Math.max(0, end - Date.now()), strict, desc);
				if (!need.includes('enabled') || enabled(el)) return actions[action](el, ...args);
				if (Date.now() >= end) throw new Error(`waiting for ${desc} to be enabled: timeout ${timeout}ms exceeded`);
				await sleep(50);
			}
		};
		return { resolve, waitFor, run, visible, actions };
	});

	// inPage is the source of a function that installs LIB in the page and calls body
	// with it and its own arguments.
	const inPage = (body) => `function (...args) { const tm = globalThis.__tidemarkK6Browser || (globalThis.__tidemarkK6Browser = (${LIB})()); return (${body}).apply(this, [tm, ...args]); }`;

	// ---- Helpers. ----
	const isObj = (v) => v !== null && typeof v === 'object';
	const timeoutOf = (opts) => (isObj(opts) && typeof opts.timeout === 'number' ? opts.timeout : 0);
	const notSupported = (what) => Promise.reject(new Error(`${what}: not supported by Tidemark's k6/browser`));
	const transient = (e) => /Execution context was destroyed|Cannot find context with specified id|Inspected target navigated|Cannot find default execution context|uniqueContextId not found/.test(String(e && e.message));

	// encodeArg makes a JSON argument of a call: a handle by its object id, RegExps
	// by source, other values as JSON.
	const encodeArg = (v) => {
		if (v instanceof JSHandle) return { h: v._id };
		if (v instanceof RegExp) return { v: { re: v.source, flags: v.flags } };
		if (v === undefined) return {};
		return { v: v };
	};
	// fnSource is a function's source for the page. The runtime's Function.prototype.
	// toString drops the closing parenthesis of an arrow function with a parenthesized
	// body (() => ({a: 1})): the source is completed until it parses.
	const fnSource = (f) => {
		if (typeof f !== 'function') return `function () { return (${String(f)}); }`;
		const s = String(f);
		for (const fix of ['', ')', '))', ')))']) {
			try {
				new Function('return (' + s + fix + ');');
				return s + fix;
			} catch (e) { /* incomplete source: try a longer fix */ }
		}
		return s;
	};

	// call runs body (in-page source) with args in the page, retrying while a navigation
	// replaces the document; it resolves to the parsed result or, with byHandle, a handle.
	async function call(page, body, args, opts) {
		const o = opts || {};
		const limit = (o.timeout || page._timeout()) + 5000;
		const end = Date.now() + limit;
		for (;;) {
			try {
				const raw = await native.pageCall(page._id, o.raw ? body : inPage(body), JSON.stringify(args.map(encodeArg)), !!o.byHandle, limit);
				if (o.byHandle) return makeHandle(page, JSON.parse(raw));
				return raw === undefined ? undefined : JSON.parse(raw);
			} catch (e) {
				if (!transient(e) || Date.now() >= end) throw e;
				await native.sleep(50);
			}
		}
	}
	const cmd = async (page, method, params) => {
		const raw = await native.pageCmd(page._id, method, JSON.stringify(params || {}));
		return raw ? JSON.parse(raw) : {};
	};

	// ---- Selectors. ----
	const parseSelector = (sel) => {
		const out = [];
		for (let part of String(sel).split(/\s+>>\s+/)) {
			part = part.trim();
			if (part.startsWith('xpath=')) out.push({ xpath: part.slice(6) });
			else if (part.startsWith('//') || part.startsWith('(//') || part.startsWith('..')) out.push({ xpath: part });
			else if (part.startsWith('text=')) {
				const t = part.slice(5);
				const q = /^(["'])(.*)\1$/.exec(t);
				out.push(q ? { text: q[2], exact: true } : { text: t });
			} else if (part.startsWith('css=')) out.push({ css: part.slice(4) });
			else if (part.startsWith('nth=')) out.push({ nth: Number(part.slice(4)) });
			else if (part.startsWith('data-testid=')) out.push({ attr: 'data-testid', value: part.slice(12) });
			else if (part.startsWith('id=')) out.push({ css: '#' + CSS_escape(part.slice(3)) });
			else out.push({ css: part });
		}
		return out;
	};
	const CSS_escape = (s) => String(s).replace(/[^a-zA-Z0-9_-]/g, (c) => '\\' + c);
	const textArg = (v) => (v instanceof RegExp ? { re: v.source, flags: v.flags } : String(v));
	const byStep = {
		getByAltText: (t, o) => ({ attr: 'alt', value: textArg(t), exact: !!(o && o.exact) }),
		getByLabel: (t, o) => ({ label: textArg(t), exact: !!(o && o.exact) }),
		getByPlaceholder: (t, o) => ({ attr: 'placeholder', value: textArg(t), exact: !!(o && o.exact) }),
		getByRole: (r, o) => ({ role: r, name: o && o.name !== undefined ? textArg(o.name) : undefined, exact: !!(o && o.exact) }),
		getByTestId: (t) => ({ attr: 'data-testid', value: textArg(t) }),
		getByText: (t, o) => ({ text: textArg(t), exact: !!(o && o.exact) }),
		getByTitle: (t, o) => ({ attr: 'title', value: textArg(t), exact: !!(o && o.exact) }),
	};
	const describe = (steps) => 'locator(' + JSON.stringify(steps.map((s) => s.css || s.xpath || s.text || s.role || s.label || s.value || s.nth || '').join(' >> ')) + ')';
	const filterSteps = (o) => {
		const out = [];
		if (isObj(o) && o.hasText !== undefined) out.push({ hasText: textArg(o.hasText) });
		if (isObj(o) && o.hasNotText !== undefined) out.push({ hasNotText: textArg(o.hasNotText) });
		return out;
	};

	// ---- Input. ----
	const KEYS = {
		Enter: { keyCode: 13, code: 'Enter', text: '\r' }, Tab: { keyCode: 9, code: 'Tab' }, Backspace: { keyCode: 8, code: 'Backspace' },
		Delete: { keyCode: 46, code: 'Delete' }, Escape: { keyCode: 27, code: 'Escape' }, Space: { keyCode: 32, code: 'Space', key: ' ', text: ' ' },
		ArrowLeft: { keyCode: 37, code: 'ArrowLeft' }, ArrowUp: { keyCode: 38, code: 'ArrowUp' }, ArrowRight: { keyCode: 39, code: 'ArrowRight' },
		ArrowDown: { keyCode: 40, code: 'ArrowDown' }, Home: { keyCode: 36, code: 'Home' }, End: { keyCode: 35, code: 'End' },
		PageUp: { keyCode: 33, code: 'PageUp' }, PageDown: { keyCode: 34, code: 'PageDown' }, Insert: { keyCode: 45, code: 'Insert' },
		Shift: { keyCode: 16, code: 'ShiftLeft' }, Control: { keyCode: 17, code: 'ControlLeft' }, Alt: { keyCode: 18, code: 'AltLeft' },
		Meta: { keyCode: 91, code: 'MetaLeft' },
	};
	for (let i = 1; i <= 12; i++) KEYS['F' + i] = { keyCode: 111 + i, code: 'F' + i };
	const MODS = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };
	const PUNCT = { ' ': ['Space', 32], '-': ['Minus', 189], '=': ['Equal', 187], '[': ['BracketLeft', 219], ']': ['BracketRight', 221], '\\': ['Backslash', 220],
		';': ['Semicolon', 186], "'": ['Quote', 222], ',': ['Comma', 188], '.': ['Period', 190], '/': ['Slash', 191], '`': ['Backquote', 192] };
	const keyDef = (key) => {
		if (key === ' ') key = 'Space';
		if (key === 'ControlOrMeta') key = 'Control'; // Meta on macOS only; Chromium runs on Linux here
		if (KEYS[key]) return Object.assign({ key: key }, KEYS[key]);
		if (key.length === 1) {
			const c = key;
			if (/[a-z]/i.test(c)) return { key: c, code: 'Key' + c.toUpperCase(), keyCode: c.toUpperCase().charCodeAt(0), text: c };
			if (/[0-9]/.test(c)) return { key: c, code: 'Digit' + c, keyCode: c.charCodeAt(0), text: c };
			if (PUNCT[c]) return { key: c, code: PUNCT[c][0], keyCode: PUNCT[c][1], text: c };
			return { key: c, code: '', keyCode: 0, text: c };
		}
		throw new Error(`unknown key: "${key}"`);
	};

	class Keyboard {
		constructor(page) { this._page = page; this._mods = 0; }
		async down(key) {
			const d = keyDef(key);
			if (MODS[d.key]) this._mods |= MODS[d.key];
			const text = this._mods & ~8 ? '' : d.text || '';
			await cmd(this._page, 'Input.dispatchKeyEvent', { type: text ? 'keyDown' : 'rawKeyDown', modifiers: this._mods, key: d.key, code: d.code,
				windowsVirtualKeyCode: d.keyCode, nativeVirtualKeyCode: d.keyCode, text: text, unmodifiedText: text, autoRepeat: false, location: 0 });
		}
		async up(key) {
			const d = keyDef(key);
			if (MODS[d.key]) this._mods &= ~MODS[d.key];
			await cmd(this._page, 'Input.dispatchKeyEvent', { type: 'keyUp', modifiers: this._mods, key: d.key, code: d.code,
				windowsVirtualKeyCode: d.keyCode, nativeVirtualKeyCode: d.keyCode });
		}
		async press(key, opts) {
			const parts = String(key).split('+');
			const main = parts.pop() || '+';
			for (const m of parts) await this.down(m);
			await this.down(main);
			if (isObj(opts) && opts.delay) await native.sleep(opts.delay);
			await this.up(main);
			for (const m of parts.reverse()) await this.up(m);
		}
		async type(text, opts) {
			for (const ch of String(text)) {
				let d = null;
				try { d = keyDef(ch === '\n' ? 'Enter' : ch); } catch (e) { d = null; }
				if (d && d.keyCode) {
					await this.press(ch === '\n' ? 'Enter' : ch);
				} else {
					await this.insertText(ch);
				}
				if (isObj(opts) && opts.delay) await native.sleep(opts.delay);
			}
		}
		async insertText(text) { await cmd(this._page, 'Input.insertText', { text: String(text) }); }
	}

	class Mouse {
		constructor(page) { this._page = page; this._x = 0; this._y = 0; this._button = 'none'; }
		_event(type, o) {
			return cmd(this._page, 'Input.dispatchMouseEvent', Object.assign({ type: type, x: this._x, y: this._y, modifiers: this._page.keyboard._mods }, o));
		}
		async move(x, y, opts) {
			const steps = (isObj(opts) && opts.steps) || 1;
			const fx = this._x, fy = this._y;
			for (let i = 1; i <= steps; i++) {
				this._x = fx + ((x - fx) * i) / steps;
				this._y = fy + ((y - fy) * i) / steps;
				await this._event('mouseMoved', { button: this._button });
			}
		}
		async down(opts) {
			this._button = (isObj(opts) && opts.button) || 'left';
			await this._event('mousePressed', { button: this._button, clickCount: (isObj(opts) && opts.clickCount) || 1 });
		}
		async up(opts) {
			const button = (isObj(opts) && opts.button) || this._button || 'left';
			this._button = 'none';
			await this._event('mouseReleased', { button: button, clickCount: (isObj(opts) && opts.clickCount) || 1 });
		}
		async click(x, y, opts) {
			const o = isObj(opts) ? opts : {};
			const count = o.clickCount || 1;
			await this.move(x, y);
			for (let i = 1; i <= count; i++) {
				await this.down({ button: o.button, clickCount: i });
				if (o.delay) await native.sleep(o.delay);
				await this.up({ button: o.button, clickCount: i });
			}
		}
		async dblclick(x, y, opts) { await this.click(x, y, Object.assign({}, opts, { clickCount: 2 })); }
	}

	class Touchscreen {
		constructor(page) { this._page = page; }
		async tap(x, y) {
			await cmd(this._page, 'Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: x, y: y }] });
			await cmd(this._page, 'Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
		}
	}

	// ---- Element operations shared by Page, Frame, Locator and ElementHandle. ----
	// A target is {page, steps, root (a JSHandle or null), strict}.
	const rootArg = (t) => (t.root ? t.root : null);
	const runOn = (t, action, args, opts) => {
		const timeout = timeoutOf(opts) || t.page._timeout();
		return call(t.page, `function (tm, steps, root, action, args, timeout, strict, desc) { return tm.run(steps, root, action, args, timeout, strict, desc); }`,
			[t.steps, rootArg(t), action, args, timeout, !!t.strict, describe(t.steps)], { timeout: timeout });
	};
	const state = (t, action) => call(t.page, `function (tm, steps, root, action) { const el = tm.resolve(steps, root)[0]; if (!el) return action === 'isHidden' ? true : action === 'isVisible' ? false : (() => { throw new Error('element not found'); })(); return tm.actions[action](el); }`,
		[t.steps, rootArg(t), action]);
	// One pointer per page: the steps of a click (find the point, press the modifiers,
	// move, down, up) run one click at a time, so that clicks a script starts at once
	// (k6-utils' check runs its functions together) do not interleave their events.
	const pointerQueues = new WeakMap();
	const exclusive = (page, fn) => {
		const next = (pointerQueues.get(page) || Promise.resolve()).then(fn);
		pointerQueues.set(page, next.catch(() => {}));
		return next;
	};
	const ops = {
		click(t, opts) {
			return exclusive(t.page, async () => {
				const o = isObj(opts) ? opts : {};
				const p = await runOn(t, 'point', [], opts);
				const mods = Array.isArray(o.modifiers) ? o.modifiers : [];
				for (const m of mods) await t.page.keyboard.down(m);
				await t.page.mouse.click(p.x, p.y, { button: o.button, clickCount: o.clickCount, delay: o.delay });
				for (const m of mods.reverse()) await t.page.keyboard.up(m);
			});
		},
		async dblclick(t, opts) { await ops.click(t, Object.assign({}, opts, { clickCount: 2 })); },
		async hover(t, opts) { const p = await runOn(t, 'point', [], opts); await t.page.mouse.move(p.x, p.y); },
		async tap(t, opts) { const p = await runOn(t, 'point', [], opts); await t.page.touchscreen.tap(p.x, p.y); },
		async fill(t, value, opts) { await runOn(t, 'fill', [String(value)], opts); },
		async clear(t, opts) { await runOn(t, 'clear', [], opts); },
		async focus(t, opts) { await runOn(t, 'focus', [], opts); },
		async type(t, text, opts) { await runOn(t, 'focusEnd', [], opts); await t.page.keyboard.type(text, opts); },
		async press(t, key, opts) { await runOn(t, 'focusEnd', [], opts); await t.page.keyboard.press(key, opts); },
		async setChecked(t, want, opts) {
			if ((await runOn(t, 'checked', [], opts)) === !!want) return;
			await ops.click(t, opts);
			if ((await runOn(t, 'checked', [], opts)) !== !!want) throw new Error('clicking the element did not change its state');
		},
		async check(t, opts) { await ops.setChecked(t, true, opts); },
		async uncheck(t, opts) { await ops.setChecked(t, false, opts); },
		async selectOption(t, values, opts) {
			const list = (Array.isArray(values) ? values : [values]).map((v) => {
				if (v instanceof ElementHandle) throw new Error('selectOption: element handles are not supported, pass values or labels');
				return isObj(v) ? { value: v.value, label: v.label, index: v.index } : { any: String(v) };
			});
			return runOn(t, 'selectOption', [list], opts);
		},
		textContent: (t, opts) => runOn(t, 'textContent', [], opts),
		innerText: (t, opts) => runOn(t, 'innerText', [], opts),
		innerHTML: (t, opts) => runOn(t, 'innerHTML', [], opts),
		getAttribute: (t, name, opts) => runOn(t, 'getAttribute', [name], opts),
		inputValue: (t, opts) => runOn(t, 'inputValue', [], opts),
		isChecked: (t, opts) => runOn(t, 'isChecked', [], opts),
		isEnabled: (t, opts) => runOn(t, 'isEnabled', [], opts),
		isDisabled: (t, opts) => runOn(t, 'isDisabled', [], opts),
		isEditable: (t, opts) => runOn(t, 'isEditable', [], opts),
		isVisible: (t) => state(t, 'isVisible'),
		isHidden: (t) => state(t, 'isHidden'),
		dispatchEvent: (t, type, init, opts) => runOn(t, 'dispatchEvent', [type, init], opts),
		boundingBox: (t, opts) => runOn(t, 'boundingBox', [], opts).catch(() => null),
		async setInputFiles(t, files, opts) {
			const paths = native.writeFiles(Array.isArray(files) ? files : [files]);
			const el = await ops.handle(t, Object.assign({}, opts, { state: 'attached' }));
			await cmd(t.page, 'DOM.setFileInputFiles', { files: paths, objectId: el._id });
		},
		async waitFor(t, opts) {
			const st = (isObj(opts) && opts.state) || 'visible';
			const timeout = timeoutOf(opts) || t.page._timeout();
			await call(t.page, `function (tm, steps, root, st, timeout, desc) { return tm.waitFor(steps, root, st, timeout, false, desc).then(() => null); }`,
				[t.steps, rootArg(t), st, timeout, describe(t.steps)], { timeout: timeout });
		},
		async handle(t, opts) {
			const st = (isObj(opts) && opts.state) || 'visible';
			const timeout = timeoutOf(opts) || t.page._timeout();
			const h = await call(t.page, `function (tm, steps, root, st, timeout, desc) { return tm.waitFor(steps, root, st, timeout, false, desc); }`,
				[t.steps, rootArg(t), st, timeout, describe(t.steps)], { timeout: timeout, byHandle: true });
			return h instanceof ElementHandle ? h : null;
		},
		count: (t) => call(t.page, `function (tm, steps, root) { return tm.resolve(steps, root).length; }`, [t.steps, rootArg(t)]),
		async query(t) {
			const h = await call(t.page, `function (tm, steps, root) { return tm.resolve(steps, root)[0] || null; }`, [t.steps, rootArg(t)], { byHandle: true });
			return h instanceof ElementHandle ? h : null;
		},
		async queryAll(t) {
			const n = await ops.count(t);
			const out = [];
			for (let i = 0; i < n; i++) {
				const h = await call(t.page, `function (tm, steps, root, i) { return tm.resolve(steps, root)[i] || null; }`, [t.steps, rootArg(t), i], { byHandle: true });
				if (h instanceof ElementHandle) out.push(h);
			}
			return out;
		},
		evaluate: (t, fn, arg) => call(t.page, `async function (tm, steps, root, f, arg) { const el = await tm.waitFor(steps, root, 'attached', ${t.page._timeout()}, false, 'element'); return (0, eval)('(' + f + ')')(el, arg); }`,
			[t.steps, rootArg(t), fnSource(fn), arg]),
		evaluateHandle: (t, fn, arg) => call(t.page, `async function (tm, steps, root, f, arg) { const el = await tm.waitFor(steps, root, 'attached', ${t.page._timeout()}, false, 'element'); return (0, eval)('(' + f + ')')(el, arg); }`,
			[t.steps, rootArg(t), fnSource(fn), arg], { byHandle: true }),
	};

	// ---- Handles. ----
	class JSHandle {
		constructor(page, h) { this._page = page; this._id = h.objectId; this._h = h; }
		asElement() { return null; }
		async dispose() { native.pageRelease(this._page._id, this._id); }
		evaluate(fn, ...args) { return call(this._page, `function (f, self, ...args) { return (0, eval)('(' + f + ')')(self, ...args); }`, [fnSource(fn), this, ...args], { raw: true }); }
		evaluateHandle(fn, ...args) { return call(this._page, `function (f, self, ...args) { return (0, eval)('(' + f + ')')(self, ...args); }`, [fnSource(fn), this, ...args], { raw: true, byHandle: true }); }
		async getProperties() {
			const names = await call(this._page, 'function (o) { return o && typeof o === "object" ? Object.keys(o) : []; }', [this], { raw: true });
			const out = new Map();
			for (const n of names) out.set(n, await call(this._page, 'function (o, n) { return o[n]; }', [this, n], { raw: true, byHandle: true }));
			return out;
		}
		jsonValue() { return call(this._page, 'function (o) { return o; }', [this], { raw: true }); }
	}
	class ElementHandle extends JSHandle {
		_t(steps) { return { page: this._page, steps: steps || [], root: this, strict: false }; }
		asElement() { return this; }
		$(sel) { return ops.query(this._t(parseSelector(sel))); }
		$$(sel) { return ops.queryAll(this._t(parseSelector(sel))); }
		boundingBox() { return ops.boundingBox(this._t()); }
		check(o) { return ops.check(this._t(), o); }
		click(o) { return ops.click(this._t(), o); }
		async contentFrame() {
			if (!(await call(this._page, 'function (el) { return !!el.contentDocument; }', [this], { raw: true }))) return null;
			// The frame of the tree (its url, name, parent), acting through this element.
			const d = await cmd(this._page, 'DOM.describeNode', { objectId: this._id }).catch(() => ({}));
			const fid = d.node && d.node.frameId;
			if (!fid || !JSON.parse(native.pageFrames(this._page._id)).some((f) => f.id === fid)) return new Frame(this._page, this);
			const f = this._page._frameOf(fid);
			if (f !== this._page._frame && !f._el) f._el = this;
			return f;
		}
		dblclick(o) { return ops.dblclick(this._t(), o); }
		dispatchEvent(type, init) { return ops.dispatchEvent(this._t(), type, init); }
		fill(v, o) { return ops.fill(this._t(), v, o); }
		focus() { return ops.focus(this._t()); }
		getAttribute(n) { return ops.getAttribute(this._t(), n); }
		hover(o) { return ops.hover(this._t(), o); }
		innerHTML() { return ops.innerHTML(this._t()); }
		innerText() { return ops.innerText(this._t()); }
		inputValue(o) { return ops.inputValue(this._t(), o); }
		isChecked() { return ops.isChecked(this._t()); }
		isDisabled() { return ops.isDisabled(this._t()); }
		isEditable() { return ops.isEditable(this._t()); }
		isEnabled() { return ops.isEnabled(this._t()); }
		isHidden() { return ops.isHidden(this._t()); }
		isVisible() { return ops.isVisible(this._t()); }
		async ownerFrame() { return this._page.mainFrame(); }
		press(k, o) { return ops.press(this._t(), k, o); }
		async screenshot(o) {
			const box = await ops.boundingBox(this._t());
			return native.pageScreenshot(this._page._id, JSON.stringify(Object.assign({}, o, { clip: box })));
		}
		async scrollIntoViewIfNeeded() { await runOn(this._t(), 'scrollIntoView', []); }
		selectOption(v, o) { return ops.selectOption(this._t(), v, o); }
		async selectText() { await runOn(this._t(), 'selectText', []); }
		setChecked(c, o) { return ops.setChecked(this._t(), c, o); }
		setInputFiles(f, o) { return ops.setInputFiles(this._t(), f, o); }
		tap(o) { return ops.tap(this._t(), o); }
		textContent() { return ops.textContent(this._t()); }
		type(t, o) { return ops.type(this._t(), t, o); }
		uncheck(o) { return ops.uncheck(this._t(), o); }
		async waitForElementState(st, o) {
			const timeout = timeoutOf(o) || this._page._timeout();
			await call(this._page, `async function (tm, el, st, timeout) { const end = Date.now() + timeout; for (;;) {
				const ok = st === 'visible' ? tm.visible(el) : st === 'hidden' ? !tm.visible(el) : st === 'enabled' ? tm.actions.isEnabled(el) : st === 'disabled' ? !tm.actions.isEnabled(el) : st === 'editable' ? tm.actions.isEditable(el) : st === 'stable' ? true : false;
				if (ok) return null; if (Date.now() >= end) throw new Error('waiting for element to be ' + st + ': timeout ' + timeout + 'ms exceeded'); await new Promise((r) => setTimeout(r, 50)); } }`,
			[this, st, timeout], { timeout: timeout });
		}
		waitForSelector(sel, o) { return ops.handle(this._t(parseSelector(sel)), o); }
	}
	const makeHandle = (page, h) => {
		if (!h || !h.objectId) return h && h.type === 'undefined' ? undefined : null;
		return h.subtype === 'node' ? new ElementHandle(page, h) : new JSHandle(page, h);
	};

	// ---- Locator. ----
	class Locator {
		constructor(page, steps, frameSteps) { this._page = page; this._steps = steps; this._frame = frameSteps || []; }
		_t() { return { page: this._page, steps: this._frame.concat(this._steps), root: null, strict: true }; }
		_loose() { return { page: this._page, steps: this._frame.concat(this._steps), root: null, strict: false }; }
		_with(steps) { return new Locator(this._page, this._steps.concat(steps), this._frame); }
		async all() { const n = await this.count(); const out = []; for (let i = 0; i < n; i++) out.push(this.nth(i)); return out; }
		boundingBox(o) { return ops.boundingBox(this._t(), o); }
		check(o) { return ops.check(this._t(), o); }
		clear(o) { return ops.clear(this._t(), o); }
		click(o) { return ops.click(this._t(), o); }
		contentFrame() { return new FrameLocator(this._page, this._frame.concat(this._steps, [{ frame: true }])); }
		count() { return ops.count(this._loose()); }
		dblclick(o) { return ops.dblclick(this._t(), o); }
		dispatchEvent(type, init, o) { return ops.dispatchEvent(this._t(), type, init, o); }
		evaluate(fn, arg) { return ops.evaluate(this._t(), fn, arg); }
		evaluateHandle(fn, arg) { return ops.evaluateHandle(this._t(), fn, arg); }
		fill(v, o) { return ops.fill(this._t(), v, o); }
		filter(o) { return this._with(filterSteps(o)); }
		first() { return this._with([{ nth: 0 }]); }
		focus(o) { return ops.focus(this._t(), o); }
		getAttribute(n, o) { return ops.getAttribute(this._t(), n, o); }
		hover(o) { return ops.hover(this._t(), o); }
		innerHTML(o) { return ops.innerHTML(this._t(), o); }
		innerText(o) { return ops.innerText(this._t(), o); }
		inputValue(o) { return ops.inputValue(this._t(), o); }
		isChecked(o) { return ops.isChecked(this._t(), o); }
		isDisabled(o) { return ops.isDisabled(this._t(), o); }
		isEditable(o) { return ops.isEditable(this._t(), o); }
		isEnabled(o) { return ops.isEnabled(this._t(), o); }
		isHidden() { return ops.isHidden(this._loose()); }
		isVisible() { return ops.isVisible(this._loose()); }
		last() { return this._with([{ nth: -1 }]); }
		locator(sel, o) { return this._with(parseSelector(sel).concat(filterSteps(o))); }
		nth(i) { return this._with([{ nth: i }]); }
		press(k, o) { return ops.press(this._t(), k, o); }
		pressSequentially(t, o) { return ops.type(this._t(), t, o); }
		selectOption(v, o) { return ops.selectOption(this._t(), v, o); }
		setChecked(c, o) { return ops.setChecked(this._t(), c, o); }
		tap(o) { return ops.tap(this._t(), o); }
		textContent(o) { return ops.textContent(this._t(), o); }
		type(t, o) { return ops.type(this._t(), t, o); }
		uncheck(o) { return ops.uncheck(this._t(), o); }
		waitFor(o) { return ops.waitFor(this._loose(), o); }
	}
	for (const k of Object.keys(byStep)) {
		Locator.prototype[k] = function (a, o) { return this._with([byStep[k](a, o)]); };
	}
	class FrameLocator {
		constructor(page, steps) { this._page = page; this._steps = steps; }
		locator(sel, o) { return new Locator(this._page, parseSelector(sel).concat(filterSteps(o)), this._steps); }
		frameLocator(sel) { return new FrameLocator(this._page, this._steps.concat(parseSelector(sel), [{ frame: true }])); }
	}
	for (const k of Object.keys(byStep)) {
		FrameLocator.prototype[k] = function (a, o) { return new Locator(this._page, [byStep[k](a, o)], this._steps); };
	}

	// ---- Request and Response (of a navigation). ----
	// Request is a request the page sent: info is {url, method, resourceType, headers,
	// failure, response} (a navigation's knows its URL only); res is its Response when
	// known.
	class Request {
		constructor(page, info, res) {
			this._page = page; this._i = info;
			this._res = res || (info.response ? new Response(page, Object.assign({ method: info.method, resourceType: info.resourceType }, info.response), this) : null);
		}
		async allHeaders() { return Object.assign({}, this._i.headers || {}); }
		failure() { return this._i.failure ? { errorText: this._i.failure } : null; }
		frame() { return this._page.mainFrame(); }
		async headerValue(n) { const v = (this._i.headers || {})[String(n).toLowerCase()]; return v === undefined ? null : v; }
		headers() { return Object.assign({}, this._i.headers || {}); }
		async headersArray() { return Object.entries(this._i.headers || {}).map(([name, value]) => ({ name, value })); }
		isNavigationRequest() { return (this._i.resourceType || 'Document') === 'Document'; }
		method() { return this._i.method || 'GET'; }
		postData() {
			const b = this.postDataBuffer();
			if (b === null) return null;
			const bytes = new Uint8Array(b);
			let text = '';
			for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
			try { return decodeURIComponent(escape(text)); } catch (e) { return text; }
		}
		postDataBuffer() { return this._i.postData ? native.b64(this._i.postData) : null; }
		resourceType() { return String(this._i.resourceType || 'Document').toLowerCase(); }
		async response() { return this._res; }
		async size() { const z = this._i.sizes; return z ? { body: z.requestBody, headers: z.requestHeaders } : { body: 0, headers: 0 }; }
		timing() {
			const t = this._i.timing || (this._res && this._res._r.timing);
			return t ? Object.assign({}, t) : { startTime: 0, domainLookupStart: -1, domainLookupEnd: -1, connectStart: -1, secureConnectionStart: -1, connectEnd: -1, requestStart: -1, responseStart: -1, responseEnd: -1 };
		}
		url() { return this._i.url; }
	}
	class Response {
		constructor(page, r, req) { this._page = page; this._r = r; this._req = req || null; }
		async allHeaders() { return Object.assign({}, this._r.headers); }
		async body() { return native.pageBody(this._page._id, this._r.requestId); }
		frame() { return this._page.mainFrame(); }
		async headerValue(n) { const v = this._r.headers[String(n).toLowerCase()]; return v === undefined ? null : v; }
		async headerValues(n) { const v = this._r.headers[String(n).toLowerCase()]; return v === undefined ? [] : String(v).split('\n'); }
		headers() { return Object.assign({}, this._r.headers); }
		async headersArray() { return Object.entries(this._r.headers).map(([name, value]) => ({ name, value })); }
		async json() {
			const bytes = new Uint8Array(await this.body());
			let text = '';
			for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
			return JSON.parse(decodeURIComponent(escape(text)));
		}
		ok() { return this._r.status === 0 || (this._r.status >= 200 && this._r.status <= 299); }
		request() {
			if (!this._req) this._req = new Request(this._page, { url: this._r.url, method: this._r.method, resourceType: this._r.resourceType, headers: this._r.requestHeaders }, this);
			return this._req;
		}
		async securityDetails() { return this._r.securityDetails ? Object.assign({}, this._r.securityDetails) : null; }
		async serverAddr() { return this._r.serverIP ? { ipAddress: this._r.serverIP, port: this._r.serverPort || 0 } : null; }
		async size() {
			const z = this._req && this._req._i.sizes;
			return z ? { body: z.responseBody, headers: z.responseHeaders } : { body: 0, headers: 0 };
		}
		status() { return this._r.status; }
		statusText() { return this._r.statusText; }
		url() { return this._r.url; }
	}
	const response = (page, raw) => (raw ? new Response(page, JSON.parse(raw)) : null);

	// ---- Frame (the main frame, or an iframe's document through its element). ----
	// A frame of page.frames() other than the main frame knows its protocol id (fid):
	// its iframe element is looked up on first use.
	class Frame {
		constructor(page, element, fid) { this._page = page; this._el = element || null; this._fid = fid || null; }
		// _info is the frame's entry in the page's frame tree (undefined once detached).
		_info() { return this._fid ? JSON.parse(native.pageFrames(this._page._id)).find((f) => f.id === this._fid) : undefined; }
		async _owner() {
			if (this._el || !this._fid) return;
			const o = await cmd(this._page, 'DOM.getFrameOwner', { frameId: this._fid });
			const r = await cmd(this._page, 'DOM.resolveNode', { backendNodeId: o.backendNodeId });
			this._el = makeHandle(this._page, r.object);
		}
		_t(sel) {
			const steps = parseSelector(sel);
			return this._el ? { page: this._page, steps: [{ frame: true }].concat(steps), root: this._el, strict: false } : { page: this._page, steps: steps, root: null, strict: false };
		}
		$(sel) { return ops.query(this._t(sel)); }
		$$(sel) { return ops.queryAll(this._t(sel)); }
		check(sel, o) { return ops.check(this._t(sel), o); }
		childFrames() {
			const all = JSON.parse(native.pageFrames(this._page._id));
			const me = this._fid || (this._el ? null : all.length > 0 && all[0].id);
			return me ? all.filter((f) => f.parentId === me).map((f) => this._page._frameOf(f.id)) : [];
		}
		content() { return this._el ? call(this._page, 'function (el) { const d = el.contentDocument; return (d.doctype ? new XMLSerializer().serializeToString(d.doctype) : "") + d.documentElement.outerHTML; }', [this._el], { raw: true }) : this._page.content(); }
		click(sel, o) { return ops.click(this._t(sel), o); }
		dblclick(sel, o) { return ops.dblclick(this._t(sel), o); }
		dispatchEvent(sel, type, init, o) { return ops.dispatchEvent(this._t(sel), type, init, o); }
		evaluate(fn, ...args) {
			if (!this._el) return this._page.evaluate(fn, ...args);
			return call(this._page, `function (el, f, ...args) { return el.contentWindow.eval('(' + f + ')')(...args); }`, [this._el, fnSource(fn), ...args], { raw: true });
		}
		evaluateHandle(fn, ...args) {
			if (!this._el) return this._page.evaluateHandle(fn, ...args);
			return call(this._page, `function (el, f, ...args) { return el.contentWindow.eval('(' + f + ')')(...args); }`, [this._el, fnSource(fn), ...args], { raw: true, byHandle: true });
		}
		fill(sel, v, o) { return ops.fill(this._t(sel), v, o); }
		focus(sel, o) { return ops.focus(this._t(sel), o); }
		async frameElement() { return this._el; }
		getAttribute(sel, n, o) { return ops.getAttribute(this._t(sel), n, o); }
		goto(url, o) { return this._page.goto(url, o); }
		hover(sel, o) { return ops.hover(this._t(sel), o); }
		innerHTML(sel, o) { return ops.innerHTML(this._t(sel), o); }
		innerText(sel, o) { return ops.innerText(this._t(sel), o); }
		inputValue(sel, o) { return ops.inputValue(this._t(sel), o); }
		isChecked(sel, o) { return ops.isChecked(this._t(sel), o); }
		isDetached() { return this._page.isClosed() || (this._fid !== null && this._info() === undefined); }
		isDisabled(sel, o) { return ops.isDisabled(this._t(sel), o); }
		isEditable(sel, o) { return ops.isEditable(this._t(sel), o); }
		isEnabled(sel, o) { return ops.isEnabled(this._t(sel), o); }
		isHidden(sel) { return ops.isHidden(this._t(sel)); }
		isVisible(sel) { return ops.isVisible(this._t(sel)); }
		locator(sel, o) { return this._page.locator(sel, o); }
		frameLocator(sel) { return this._page.frameLocator(sel); }
		name() { const f = this._info(); return f ? f.name : ''; }
		page() { return this._page; }
		parentFrame() {
			if (this._fid) { const f = this._info(); return f && f.parentId ? this._page._frameOf(f.parentId) : null; }
			return this._el ? this._page.mainFrame() : null;
		}
		press(sel, k, o) { return ops.press(this._t(sel), k, o); }
		selectOption(sel, v, o) { return ops.selectOption(this._t(sel), v, o); }
		setChecked(sel, c, o) { return ops.setChecked(this._t(sel), c, o); }
		setContent(html, o) { return this._page.setContent(html, o); }
		setInputFiles(sel, f, o) { return ops.setInputFiles(this._t(sel), f, o); }
		tap(sel, o) { return ops.tap(this._t(sel), o); }
		textContent(sel, o) { return ops.textContent(this._t(sel), o); }
		title() { return this._page.title(); }
		type(sel, t, o) { return ops.type(this._t(sel), t, o); }
		uncheck(sel, o) { return ops.uncheck(this._t(sel), o); }
		url() {
			if (this._fid) { const f = this._info(); return f ? f.url : ''; }
			if (this._el) return '';
			return this._page.url();
		}
		waitForFunction(fn, o, ...args) { return this._page.waitForFunction(fn, o, ...args); }
		waitForLoadState(st, o) { return this._page.waitForLoadState(st, o); }
		waitForNavigation(o) { return this._page.waitForNavigation(o); }
		waitForSelector(sel, o) { return ops.handle(this._t(sel), o); }
		waitForTimeout(ms) { return this._page.waitForTimeout(ms); }
		waitForURL(u, o) { return this._page.waitForURL(u, o); }
	}
	for (const k of Object.keys(byStep)) {
		Frame.prototype[k] = function (a, o) { return new Locator(this._page, [byStep[k](a, o)]); };
	}
	// A frame of page.frames() finds its iframe element before acting in it.
	for (const k of ['$', '$$', 'check', 'click', 'content', 'dblclick', 'dispatchEvent', 'evaluate', 'evaluateHandle', 'fill', 'focus', 'frameElement',
		'getAttribute', 'hover', 'innerHTML', 'innerText', 'inputValue', 'isChecked', 'isDisabled', 'isEditable', 'isEnabled', 'isHidden', 'isVisible',
		'press', 'selectOption', 'setChecked', 'setInputFiles', 'tap', 'textContent', 'type', 'uncheck', 'waitForSelector']) {
		const direct = Frame.prototype[k];
		Frame.prototype[k] = function (...a) {
			if (this._fid && !this._el) return this._owner().then(() => direct.apply(this, a));
			return direct.apply(this, a);
		};
	}
	// Worker is a dedicated worker of the page (page.workers()).
	class Worker {
		constructor(w) { this._w = w; }
		url() { return this._w.url; }
	}

	// ---- Page. ----
	class Page {
		constructor(context, id) {
			this._context = context;
			this._id = id;
			this.keyboard = new Keyboard(this);
			this.mouse = new Mouse(this);
			this.touchscreen = new Touchscreen(this);
			this._frame = new Frame(this);
			this._viewport = null;
			this._timeoutMs = 0;
			this._navTimeoutMs = 0;
			this._console = [];
			this._net = [];
			this._routes = [];
			this._frames = new Map();
			this._workers = new Map();
		}
		// _frameOf is the Frame of the protocol frame id, the same object every time.
		_frameOf(fid) {
			const all = JSON.parse(native.pageFrames(this._id));
			if (all.length > 0 && all[0].id === fid) return this._frame;
			let f = this._frames.get(fid);
			if (!f) { f = new Frame(this, null, fid); this._frames.set(fid, f); }
			return f;
		}
		_workerOf(w) {
			let x = this._workers.get(w.id);
			if (!x) { x = new Worker(w); this._workers.set(w.id, x); }
			return x;
		}
		_timeout() { return this._timeoutMs || native.ctxTimeout(this._context._id); }
		// _applyContext applies the context's geolocation and offline mode to the page.
		async _applyContext() {
			const c = this._context;
			const o = c._opts;
			if (o.viewport || o.deviceScaleFactor || o.isMobile || isObj(o.screen)) {
				const v = o.viewport || { width: 1280, height: 720 };
				this._viewport = { width: v.width, height: v.height };
				const m = { width: v.width, height: v.height, deviceScaleFactor: o.deviceScaleFactor || 1, mobile: !!o.isMobile };
				if (isObj(o.screen)) { m.screenWidth = o.screen.width; m.screenHeight = o.screen.height; }
				await cmd(this, 'Emulation.setDeviceMetricsOverride', m);
			}
			if (o.hasTouch) await cmd(this, 'Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 1 });
			if (o.locale) await cmd(this, 'Emulation.setLocaleOverride', { locale: o.locale });
			if (o.timezoneID) await cmd(this, 'Emulation.setTimezoneOverride', { timezoneId: o.timezoneID });
			if (o.colorScheme || o.reducedMotion) await this.emulateMedia({ colorScheme: o.colorScheme, reducedMotion: o.reducedMotion });
			if (o.javaScriptEnabled === false) await cmd(this, 'Emulation.setScriptExecutionDisabled', { value: true });
			if (o.bypassCSP) await cmd(this, 'Page.setBypassCSP', { enabled: true });
			if (o.ignoreHTTPSErrors) await cmd(this, 'Security.setIgnoreCertificateErrors', { ignore: true });
			if (c._geo) await cmd(this, 'Emulation.setGeolocationOverride', c._geo);
			if (c._offline !== undefined) {
				await cmd(this, 'Network.emulateNetworkConditions', { offline: c._offline, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
			}
		}
		_t(sel) { return { page: this, steps: parseSelector(sel), root: null, strict: false }; }
		$(sel) { return ops.query(this._t(sel)); }
		$$(sel) { return ops.queryAll(this._t(sel)); }
		async bringToFront() { await cmd(this, 'Page.bringToFront'); }
		check(sel, o) { return ops.check(this._t(sel), o); }
		click(sel, o) { return ops.click(this._t(sel), o); }
		async close() { this._context._pages.delete(this._id); await native.pageClose(this._id); }
		content() { return call(this, 'function () { return (document.doctype ? new XMLSerializer().serializeToString(document.doctype) : "") + document.documentElement.outerHTML; }', [], { raw: true }); }
		context() { return this._context; }
		dblclick(sel, o) { return ops.dblclick(this._t(sel), o); }
		dispatchEvent(sel, type, init, o) { return ops.dispatchEvent(this._t(sel), type, init, o); }
		async emulateMedia(o) {
			const x = isObj(o) ? o : {};
			const features = [];
			if (x.colorScheme) features.push({ name: 'prefers-color-scheme', value: x.colorScheme });
			if (x.reducedMotion) features.push({ name: 'prefers-reduced-motion', value: x.reducedMotion });
			await cmd(this, 'Emulation.setEmulatedMedia', { media: x.media || '', features: features });
		}
		async emulateVisionDeficiency(t) { await cmd(this, 'Emulation.setEmulatedVisionDeficiency', { type: t }); }
		evaluate(fn, ...args) {
			if (typeof fn !== 'function' && typeof fn !== 'string') return Promise.reject(new TypeError('evaluate: expected a function or a string'));
			return call(this, `function (f, ...args) { return (0, eval)('(' + f + ')')(...args); }`, [fnSource(fn), ...args], { raw: true });
		}
		evaluateHandle(fn, ...args) { return call(this, `function (f, ...args) { return (0, eval)('(' + f + ')')(...args); }`, [fnSource(fn), ...args], { raw: true, byHandle: true }); }
		fill(sel, v, o) { return ops.fill(this._t(sel), v, o); }
		focus(sel, o) { return ops.focus(this._t(sel), o); }
		frames() {
			const all = JSON.parse(native.pageFrames(this._id));
			return all.length === 0 ? [this._frame] : all.map((f) => this._frameOf(f.id));
		}
		getAttribute(sel, n, o) { return ops.getAttribute(this._t(sel), n, o); }
		async goBack(o) { return this._history(-1, o); }
		async goForward(o) { return this._history(1, o); }
		async _history(delta, o) {
			const hist = await cmd(this, 'Page.getNavigationHistory');
			const e = hist.entries && hist.entries[hist.currentIndex + delta];
			if (!e) return null;
			const mark = native.pageMark(this._id);
			await cmd(this, 'Page.navigateToHistoryEntry', { entryId: e.id });
			return response(this, await native.pageWaitNav(this._id, mark, (isObj(o) && o.waitUntil) || 'load', timeoutOf(o) || this._navTimeoutMs));
		}
		async goto(url, o) {
			const x = isObj(o) ? o : {};
			return response(this, await native.pageGoto(this._id, String(url), x.waitUntil || 'load', timeoutOf(x) || this._navTimeoutMs));
		}
		hover(sel, o) { return ops.hover(this._t(sel), o); }
		innerHTML(sel, o) { return ops.innerHTML(this._t(sel), o); }
		innerText(sel, o) { return ops.innerText(this._t(sel), o); }
		inputValue(sel, o) { return ops.inputValue(this._t(sel), o); }
		isChecked(sel, o) { return ops.isChecked(this._t(sel), o); }
		isClosed() { return native.pageClosed(this._id); }
		isDisabled(sel, o) { return ops.isDisabled(this._t(sel), o); }
		isEditable(sel, o) { return ops.isEditable(this._t(sel), o); }
		isEnabled(sel, o) { return ops.isEnabled(this._t(sel), o); }
		isHidden(sel) { return ops.isHidden(this._t(sel)); }
		isVisible(sel) { return ops.isVisible(this._t(sel)); }
		locator(sel, o) { return new Locator(this, parseSelector(sel).concat(filterSteps(o))); }
		frameLocator(sel) { return new FrameLocator(this, parseSelector(sel).concat([{ frame: true }])); }
		mainFrame() { return this._frame; }
		on(event, handler) {
			if (typeof handler !== 'function') throw new TypeError('on: expected a handler function');
			if (event === 'metric') {
				// Each request's metrics wait for the handlers, which may rename them.
				if (!this._metric) { this._metric = []; native.pageTagMetrics(this._id); }
				this._metric.push(handler);
				listening.add(this);
				return;
			}
			if (NET_EVENTS.includes(event)) {
				if (this._netMark === undefined) this._netMark = native.pageNetMark(this._id);
				this._net.push({ kind: event, handler: handler });
				listening.add(this);
				native.pageListen(this._id);
				return;
			}
			if (event !== 'console') throw new Error(`page.on('${event}'): not supported by Tidemark's k6/browser (only 'console', 'metric', ${NET_EVENTS.map((e) => `'${e}'`).join(', ')})`);
			this._console.push(handler);
			listening.add(this);
			native.pageListen(this._id);
		}
		async opener() { return null; }
		press(sel, k, o) { return ops.press(this._t(sel), k, o); }
		async reload(o) {
			const x = isObj(o) ? o : {};
			return response(this, await native.pageReload(this._id, x.waitUntil || 'load', timeoutOf(x) || this._navTimeoutMs));
		}
		async route(url, handler) {
			if (typeof handler !== 'function') throw new TypeError('route: expected a handler function');
			this._routes.push({ url: url, handler: handler });
			listening.add(this);
			await this._syncRoutes();
		}
		async _syncRoutes() {
			const sources = this._routes.map((r) => (r.url instanceof RegExp ? r.url.source : typeof r.url === 'function' ? '' : globSource(String(r.url))));
			await native.pageSetRoutes(this._id, JSON.stringify(sources));
		}
		async screenshot(o) { return native.pageScreenshot(this._id, JSON.stringify(isObj(o) ? o : {})); }
		selectOption(sel, v, o) { return ops.selectOption(this._t(sel), v, o); }
		setChecked(sel, c, o) { return ops.setChecked(this._t(sel), c, o); }
		async setContent(html, o) {
			const x = isObj(o) ? o : {};
			const mark = native.pageMark(this._id);
			await call(this, 'function (html) { document.open(); document.write(html); document.close(); }', [String(html)], { raw: true });
			if (native.pageMark(this._id) > mark) await native.pageWaitLoad(this._id, x.waitUntil || 'load', timeoutOf(x) || this._navTimeoutMs);
			else await native.pageWaitLoad(this._id, x.waitUntil || 'load', timeoutOf(x) || this._navTimeoutMs);
			// The written document's own load (its frames and images): the document
			// the page loaded before reached its load already.
			if ((x.waitUntil || 'load') !== 'domcontentloaded') {
				await call(this, 'function () { return document.readyState === "complete" ? null : new Promise((r) => addEventListener("load", () => r(null), { once: true })); }',
					[], { raw: true, timeout: timeoutOf(x) || this._navTimeoutMs || this._timeout() });
			}
		}
		setDefaultNavigationTimeout(ms) { this._navTimeoutMs = ms; }
		setDefaultTimeout(ms) { this._timeoutMs = ms; this._navTimeoutMs = this._navTimeoutMs || ms; }
		async setExtraHTTPHeaders(h) { await cmd(this, 'Network.setExtraHTTPHeaders', { headers: h || {} }); }
		setInputFiles(sel, f, o) { return ops.setInputFiles(this._t(sel), f, o); }
		async setViewportSize(v) {
			this._viewport = { width: v.width, height: v.height };
			await cmd(this, 'Emulation.setDeviceMetricsOverride', { width: v.width, height: v.height, deviceScaleFactor: 1, mobile: false });
		}
		tap(sel, o) { return ops.tap(this._t(sel), o); }
		textContent(sel, o) { return ops.textContent(this._t(sel), o); }
		async throttleCPU(p) { await cmd(this, 'Emulation.setCPUThrottlingRate', { rate: (isObj(p) && p.rate) || 1 }); }
		async throttleNetwork(p) {
			const x = isObj(p) ? p : {};
			await cmd(this, 'Network.emulateNetworkConditions', { offline: false, latency: x.latency || 0, downloadThroughput: x.download === undefined ? -1 : x.download, uploadThroughput: x.upload === undefined ? -1 : x.upload });
		}
		title() { return call(this, 'function () { return document.title; }', [], { raw: true }); }
		type(sel, t, o) { return ops.type(this._t(sel), t, o); }
		uncheck(sel, o) { return ops.uncheck(this._t(sel), o); }
		async unroute(url, handler) {
			this._routes = this._routes.filter((r) => !(String(r.url) === String(url) && (handler === undefined || r.handler === handler)));
			await this._syncRoutes();
		}
		async unrouteAll() { this._routes = []; await this._syncRoutes(); }
		url() { return native.pageURL(this._id); }
		viewportSize() { return this._viewport || { width: 1280, height: 720 }; }
		async waitForEvent(event, o) {
			const pred = typeof o === 'function' ? o : isObj(o) && typeof o.predicate === 'function' ? o.predicate : () => true;
			if (event === 'request' || event === 'response') return this._waitNet(event, pred, isObj(o) ? o : undefined);
			if (event !== 'console') throw new Error(`page.waitForEvent('${event}'): expected 'console', 'request' or 'response'`);
			let found = null;
			const h = (m) => { if (!found && pred(m)) found = m; };
			this._console.push(h);
			listening.add(this);
			native.pageListen(this._id);
			try {
				return await poll(() => found, timeoutOf(o) || this._timeout(), 'event "console"');
			} finally {
				this._console = this._console.filter((x) => x !== h);
			}
		}
		async waitForFunction(fn, o, ...args) {
			const x = isObj(o) ? o : {};
			const timeout = timeoutOf(x) || this._timeout();
			const poll = typeof x.polling === 'number' ? x.polling : 50;
			return call(this, `async function (f, timeout, poll, ...args) { const fn = (0, eval)('(' + f + ')'); const end = Date.now() + timeout; for (;;) {
				const v = await fn(...args); if (v) return v; if (Date.now() >= end) throw new Error('waiting for function: timeout ' + timeout + 'ms exceeded'); await new Promise((r) => setTimeout(r, poll)); } }`,
			[fnSource(fn), timeout, poll, ...args], { raw: true, byHandle: true, timeout: timeout });
		}
		async waitForLoadState(st, o) { await native.pageWaitLoad(this._id, st || 'load', timeoutOf(o) || this._navTimeoutMs); }
		async waitForNavigation(o) {
			const x = isObj(o) ? o : {};
			return response(this, await native.pageWaitNav(this._id, native.pageMark(this._id), x.waitUntil || 'load', timeoutOf(x) || this._navTimeoutMs));
		}
		waitForRequest(want, o) { return this._waitNet('request', want, o); }
		waitForResponse(want, o) { return this._waitNet('response', want, o); }
		// _waitNet resolves with the first request or response from now on whose URL
		// matches want: a string (the URL, or a glob with *), a RegExp or a predicate
		// of the Request or Response.
		async _waitNet(kind, want, o) {
			const timeout = timeoutOf(o) || this._timeout();
			const end = Date.now() + timeout;
			let mark = native.pageNetMark(this._id);
			const make = (e) => (kind === 'response' ? new Response(this, e) : new Request(this, e));
			for (;;) {
				const left = end - Date.now();
				if (left <= 0) throw new Error(`waiting for ${kind} ${want instanceof RegExp ? want : JSON.stringify(String(want))}: timed out after ${timeout}ms`);
				const got = JSON.parse(await native.pageNetEvents(this._id, mark, left));
				for (const e of got.events) {
					if (e.kind !== kind) continue;
					const ok = typeof want === 'function' ? await want(make(e)) : want instanceof RegExp ? want.test(e.url) : e.url === String(want) || globMatch(String(want), e.url);
					if (ok) return make(e);
				}
				mark = got.next;
			}
		}
		waitForSelector(sel, o) { return ops.handle(this._t(sel), o); }
		async waitForTimeout(ms) { await native.sleep(ms); }
		async waitForURL(want, o) {
			const timeout = timeoutOf(o) || this._navTimeoutMs || this._timeout();
			const end = Date.now() + timeout;
			const ok = (u) => (want instanceof RegExp ? want.test(u) : typeof want === 'function' ? want(u) : u === String(want) || globMatch(String(want), u));
			while (!ok(this.url())) {
				if (Date.now() >= end) throw new Error(`waiting for URL ${want}: timed out after ${timeout}ms`);
				await native.sleep(25);
			}
			await this.waitForLoadState((isObj(o) && o.waitUntil) || 'load', o);
		}
		workers() { return JSON.parse(native.pageWorkers(this._id)).map((w) => this._workerOf(w)); }
	}
	// NET_EVENTS are page.on's events of the page's network.
	const NET_EVENTS = ['request', 'response', 'requestfinished', 'requestfailed'];
	for (const k of Object.keys(byStep)) {
		Page.prototype[k] = function (a, o) { return new Locator(this, [byStep[k](a, o)]); };
	}
	// ---- Events: the handlers run on the VU's event loop when their events happen
	// (posted by the bridge), and at the latest before a browser promise settles. ----
	class ConsoleMessage {
		constructor(page, m) { this._page = page; this._m = m; }
		args() { return (this._m.args || []).map((v) => new ValueHandle(this._page, v)); }
		page() { return this._page; }
		text() { return this._m.text; }
		type() { return this._m.type; }
	}
	// Route is a request paused by page.route: the handler decides it.
	class Route {
		constructor(page, req) { this._page = page; this._req = req; }
		abort(code) { return native.pageRouteAct(this._page._id, this._req.id, 'abort', code === undefined ? '' : String(code)); }
		continue(o) { return native.pageRouteAct(this._page._id, this._req.id, 'continue', isObj(o) ? JSON.stringify(o) : ''); }
		fulfill(o) {
			const x = isObj(o) ? o : {};
			const headers = Object.assign({}, x.headers || {});
			if (x.contentType) headers['Content-Type'] = x.contentType;
			const buf = x.body instanceof ArrayBuffer ? x.body : undefined;
			return native.pageRouteAct(this._page._id, this._req.id, 'fulfill',
				JSON.stringify({ status: x.status || 200, headers: headers, body: buf || x.body === undefined ? '' : String(x.body) }), buf);
		}
		request() { return new Request(this._page, this._req); }
	}
	// MetricMessage is a request's metrics for a page.on('metric') handler: tag names
	// them when one of its matches matches their URL (and method).
	class MetricMessage {
		constructor(url, method) { this._url = url; this._method = method; this._name = ''; }
		tag(m) {
			if (!isObj(m) || !m.name || !Array.isArray(m.matches)) throw new TypeError('metric.tag: expected {name, matches: [{url, method}]}');
			for (const x of m.matches) {
				const ok = x.url instanceof RegExp ? x.url.test(this._url) : this._url === String(x.url);
				if (ok && (!x.method || String(x.method).toUpperCase() === this._method)) { this._name = String(m.name); return; }
			}
		}
	}
	// ValueHandle is a console argument: its value, as a JSHandle shows it.
	class ValueHandle {
		constructor(page, v) { this._page = page; this._v = v; }
		asElement() { return null; }
		async dispose() { /* nothing held in the page */ }
		async evaluate(fn, ...args) { return fn(this._v, ...args); }
		async evaluateHandle(fn, ...args) { return new ValueHandle(this._page, await fn(this._v, ...args)); }
		async getProperties() { return new Map(Object.entries(isObj(this._v) ? this._v : {}).map(([k, v]) => [k, new ValueHandle(this._page, v)])); }
		async jsonValue() { return this._v; }
	}
	const listening = new Set();
	// poll resolves with found()'s first value other than null, checking every 20 ms
	// (each wait lets the VU's event loop run: page events, other promises).
	const poll = async (found, timeout, what) => {
		const end = Date.now() + timeout;
		for (;;) {
			const v = found();
			if (v !== null && v !== undefined) return v;
			if (Date.now() >= end) throw new Error(`waiting for ${what}: timed out after ${timeout}ms`);
			await native.sleep(20);
		}
	};
	native.setDispatch(() => {
		for (const a of JSON.parse(native.metricAsks())) {
			let name = '';
			for (const page of listening) {
				if (page._id !== a.page || !page._metric) continue;
				for (const h of page._metric) {
					const m = new MetricMessage(a.url, a.method);
					try { h(m); } finally { if (m._name) name = m._name; }
				}
			}
			native.metricAnswer(a.id, name);
		}
		for (const page of listening) {
			if (page.isClosed()) { listening.delete(page); continue; }
			const msgs = JSON.parse(native.pageConsole(page._id));
			for (const m of msgs) for (const h of page._console) h(new ConsoleMessage(page, m));
			if (page._routes.length > 0) {
				for (const req of JSON.parse(native.pageRouted(page._id))) {
					const r = new Route(page, req);
					let handled = false;
					for (let i = page._routes.length - 1; i >= 0 && !handled; i--) {
						const x = page._routes[i];
						const ok = x.url instanceof RegExp ? x.url.test(req.url) : typeof x.url === 'function' ? x.url(req.url) : req.url === String(x.url) || globMatch(String(x.url), req.url);
						if (ok) { x.handler(r); handled = true; }
					}
					if (!handled) r.continue();
				}
			}
			if (page._net.length > 0) {
				const got = JSON.parse(native.pageNetTake(page._id, page._netMark));
				page._netMark = got.next;
				for (const e of got.events) {
					let obj = null;
					for (const l of page._net) {
						if (l.kind !== e.kind) continue;
						if (obj === null) obj = e.kind === 'response' ? new Response(page, e) : new Request(page, e);
						l.handler(obj);
					}
				}
			}
		}
	});

	// globSource is the regular expression source of a route's string URL: a glob
	// with * (** crosses slashes), else the whole URL.
	const globSource = (g) => (g.includes('*')
		? '^' + g.split('**').map((p) => p.split('*').map((q) => q.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')).join('.*') + '$'
		: '^' + g.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$');
	const globMatch = (glob, s) => {
		if (!glob.includes('*')) return false;
		const re = '^' + glob.split('**').map((p) => p.split('*').map((q) => q.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')).join('.*') + '$';
		return new RegExp(re).test(s);
	};

	// ---- BrowserContext and Browser. ----
	// PERMISSIONS maps k6's (Playwright's) permission names to the protocol's.
	const PERMISSIONS = {
		geolocation: 'geolocation', midi: 'midi', 'midi-sysex': 'midiSysex', notifications: 'notifications',
		camera: 'videoCapture', microphone: 'audioCapture', 'background-sync': 'backgroundSync',
		'ambient-light-sensor': 'sensors', accelerometer: 'sensors', gyroscope: 'sensors', magnetometer: 'sensors',
		'clipboard-read': 'clipboardReadWrite', 'clipboard-write': 'clipboardSanitizedWrite', 'payment-handler': 'paymentHandler',
	};
	class BrowserContext {
		constructor(browser, id, opts) {
			this._browser = browser;
			this._id = id;
			this._pages = new Map();
			this._opts = isObj(opts) ? opts : {};
			if (this._opts.geolocation) this._geo = { latitude: this._opts.geolocation.latitude, longitude: this._opts.geolocation.longitude, accuracy: this._opts.geolocation.accuracy || 0 };
			if (this._opts.offline) this._offline = true;
		}
		async addCookies(cookies) { await native.ctxAddCookies(this._id, JSON.stringify(cookies || [])); }
		async addInitScript(s) {
			const src = typeof s === 'function' ? `(${s})()` : isObj(s) ? String(s.content || '') : String(s);
			native.ctxAddInitScript(this._id, src);
		}
		browser() { return this._browser; }
		async clearCookies() { await native.ctxClearCookies(this._id); }
		async clearPermissions() { await native.ctxCmd(this._id, 'Browser.resetPermissions', '{}'); }
		async close() { await native.ctxClose(this._id); this._pages.clear(); }
		async cookies(...urls) { return JSON.parse(await native.ctxCookies(this._id, JSON.stringify(urls.flat()))); }
		async grantPermissions(perms, o) {
			const list = (Array.isArray(perms) ? perms : [perms]).map((p) => {
				const t = PERMISSIONS[p];
				if (!t) throw new Error(`grantPermissions: unknown permission "${p}"; expected one of ${Object.keys(PERMISSIONS).join(', ')}`);
				return t;
			});
			const params = { permissions: list };
			if (isObj(o) && o.origin) params.origin = o.origin;
			await native.ctxCmd(this._id, 'Browser.grantPermissions', JSON.stringify(params));
		}
		async newPage() {
			const id = await native.ctxNewPage(this._id);
			const p = new Page(this, id);
			this._pages.set(id, p);
			await p._applyContext();
			return p;
		}
		// pages are the context's pages, the tabs its pages opened included.
		pages() {
			return native.ctxPages(this._id).map((id) => {
				if (!this._pages.has(id)) this._pages.set(id, new Page(this, id));
				return this._pages.get(id);
			});
		}
		setDefaultNavigationTimeout(ms) { native.ctxSetNavTimeout(this._id, ms); }
		setDefaultTimeout(ms) { native.ctxSetTimeout(this._id, ms); }
		async setGeolocation(g) {
			this._geo = isObj(g) ? { latitude: g.latitude, longitude: g.longitude, accuracy: g.accuracy || 0 } : null;
			for (const p of this._pages.values()) await p._applyContext();
		}
		async setOffline(off) {
			this._offline = !!off;
			for (const p of this._pages.values()) await p._applyContext();
		}
		async waitForEvent(event, o) {
			if (event !== 'page') throw new Error(`browserContext.waitForEvent('${event}'): the only event is 'page'`);
			const pred = typeof o === 'function' ? o : isObj(o) && typeof o.predicate === 'function' ? o.predicate : () => true;
			const seen = new Set(this._pages.keys());
			return poll(() => {
				for (const p of this.pages()) {
					if (seen.has(p._id)) continue;
					seen.add(p._id);
					if (pred(p)) return p;
				}
				return null;
			}, timeoutOf(o) || native.ctxTimeout(this._id), 'event "page"');
		}
	}

	// makeBrowser is the Browser of the VU's own browser (rid 0) or, with close, the
	// ConnectedBrowser of a connection.
	const makeBrowser = (rid) => {
		let current = null;
		const b = {
			context() {
				native.check();
				const id = native.currentContext(rid);
				if (id === null) { current = null; return null; }
				if (!current || current._id !== id) current = new BrowserContext(b, id, {});
				return current;
			},
			async closeContext() {
				const c = b.context();
				if (!c) throw new Error('no browser context to close');
				await c.close();
				current = null;
			},
			isConnected() { return native.isConnected(rid); },
			async newContext(o) {
				const id = await native.newContext(o === undefined ? '' : JSON.stringify(o), rid);
				current = new BrowserContext(b, id, o);
				if (isObj(o) && Array.isArray(o.permissions) && o.permissions.length > 0) await current.grantPermissions(o.permissions);
				return current;
			},
			async newPage(o) {
				const c = await b.newContext(o);
				return c.newPage();
			},
			userAgent() { return native.userAgent(rid); },
			version() { return native.version(rid); },
		};
		if (rid !== 0) b.close = async () => { await native.disconnect(rid); current = null; };
		return b;
	};
	const browser = makeBrowser(0);
	const chromium = {
		async connectOverCDP(url) {
			if (typeof url !== 'string' || url === '') throw new TypeError('connectOverCDP: expected the browser\'s WebSocket or http://host:port URL');
			return makeBrowser(await native.connect(url));
		},
	};
	// networkProfiles are page.throttleNetwork's presets, Chrome DevTools' throttling
	// presets: latency in milliseconds, throughput in bytes per second (-1: none).
	const networkProfiles = Object.freeze({
		'No Throttling': Object.freeze({ latency: 0, download: -1, upload: -1 }),
		'Fast 3G': Object.freeze({ latency: 562.5, download: 180000, upload: 84375 }),
		'Slow 3G': Object.freeze({ latency: 2000, download: 50000, upload: 50000 }),
	});
	return { browser: browser, chromium: chromium, devices: devicesData, networkProfiles: networkProfiles };
})
