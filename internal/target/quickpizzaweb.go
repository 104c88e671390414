package target

// The pages of the QuickPizza stand-in (NewQuickPizza): plain HTML with a little
// inline JavaScript, written for the selectors and texts QuickPizza's k6 browser
// scripts and page objects use. Every button's text is exactly its label, so that
// XPath's string value (//button[. = "Pizza, Please!"]) and accessible names match.

// quickPizzaStyle is the pages' shared style sheet.
const quickPizzaStyle = `<style>
body{font-family:system-ui,sans-serif;margin:0;color:#222;text-align:center}
header,footer{padding:1em;background:#fdf2e9}
main{padding:2em 1em}
button{margin:.5em;padding:.6em 1.4em;border:0;border-radius:.4em;background:#e0522f;color:#fff;font-size:1em;cursor:pointer}
input{margin:.3em;padding:.4em}
#recommendations{display:inline-block;text-align:left;border:1px solid #ddd;border-radius:.5em;padding:1em 2em;margin-top:1em}
.error{color:#b00020}
</style>`

// quickPizzaCookie is the inline function that reads a cookie by name.
const quickPizzaCookie = `function cookie(name) {
  const kv = document.cookie.split('; ').find(function (c) { return c.indexOf(name + '=') === 0; });
  return kv ? kv.slice(name.length + 1) : '';
}
function el(tag, text, attrs) {
  const e = document.createElement(tag);
  if (text) e.textContent = text;
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  return e;
}
`

// quickPizzaHome is the home page: "Pizza, Please!" asks the pizza API for a
// recommendation with an anonymous 16-character token (or the logged-in user's
// qp_user_token) and shows it in div#recommendations, which exists only then, with
// the "No thanks" and "Love it!" rating buttons (a rating needs a logged-in user).
const quickPizzaHome = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>QuickPizza</title>` + quickPizzaStyle + `</head>
<body>
<header><a href="/">QuickPizza</a> | <a href="/login">Login/Profile</a></header>
<main>
<h1>Looking to break out of your pizza routine?</h1>
<p>Tell us nothing, click once, and get a pizza you have not tried yet.</p>
<button type="button" name="pizza-please" id="pizza-please">Pizza, Please!</button>
<p class="error" id="error-message" hidden></p>
<div id="result"></div>
</main>
<footer><p>A stand-in for QuickPizza, served by Tidemark.</p><p>Looking for the admin page? <a href="/admin">Admin</a></p></footer>
<script>
(function () {
` + quickPizzaCookie + `
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let anonymous = '';
  for (let i = 0; i < 16; i++) anonymous += alphabet[Math.floor(Math.random() * alphabet.length)];
  const result = document.getElementById('result');
  const failure = document.getElementById('error-message');
  let pizza = null;
  function headers() {
    return {'Content-Type': 'application/json', 'Authorization': 'Token ' + (cookie('qp_user_token') || anonymous)};
  }
  async function recommend() {
    failure.hidden = true;
    const res = await fetch('/api/pizza', {method: 'POST', headers: headers(), body: JSON.stringify({
      maxCaloriesPerSlice: 1000, mustBeVegetarian: false, excludedIngredients: [], excludedTools: [],
      maxNumberOfToppings: 5, minNumberOfToppings: 2})});
    if (!res.ok) {
      failure.textContent = 'No pizza this time: ' + res.status;
      failure.hidden = false;
      return;
    }
    const body = await res.json();
    pizza = body.pizza;
    const box = el('div', '', {id: 'recommendations'});
    box.append(el('h2', 'Our recommendation:', {id: 'pizza-name'}), el('p', 'Name: ' + pizza.name),
      el('p', 'Dough: ' + pizza.dough.name), el('p', 'Ingredients:'));
    const list = el('ul');
    pizza.ingredients.forEach(function (i) { list.append(el('li', i.name)); });
    box.append(list, el('p', 'Tool: ' + pizza.tool), el('p', 'Calories per slice: ' + body.calories));
    const no = el('button', 'No thanks', {type: 'button', name: 'rate-1'});
    const yes = el('button', 'Love it!', {type: 'button', name: 'rate-5'});
    no.addEventListener('click', function () { rate(1); });
    yes.addEventListener('click', function () { rate(5); });
    result.replaceChildren(box, no, yes, el('p', '', {id: 'rate-result'}));
  }
  async function rate(stars) {
    const out = document.getElementById('rate-result');
    if (!cookie('qp_user_token')) {
      out.textContent = 'Please log in first.';
      return;
    }
    const res = await fetch('/api/ratings', {method: 'POST', headers: headers(), body: JSON.stringify({pizza_id: pizza.id, stars: stars})});
    out.textContent = res.ok ? 'Rated!' : 'Rating failed: ' + res.status;
  }
  document.getElementById('pizza-please').addEventListener('click', recommend);
})();
</script>
</body></html>`

// quickPizzaLogin is the user's login page: "Sign in" fetches a CSRF token and logs
// in (the server sets qp_user_token); logged in, it lists the user's ratings and has
// "Clear Ratings" and "Logout".
const quickPizzaLogin = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>QuickPizza Login</title>` + quickPizzaStyle + `</head>
<body>
<header><a href="/">QuickPizza</a></header>
<main id="main"></main>
<footer><a href="/">Back to main page</a></footer>
<script>
(function () {
` + quickPizzaCookie + `
  const main = document.getElementById('main');
  function signedOut(message) {
    const form = el('form', '', {id: 'login-form'});
    form.append(el('h1', 'Login'),
      el('label', 'Username (hint: default)', {for: 'username'}), el('input', '', {id: 'username', name: 'username', type: 'text', required: ''}), el('br'),
      el('label', 'Password (hint: 12345678)', {for: 'password'}), el('input', '', {id: 'password', name: 'password', type: 'password', required: ''}), el('br'),
      el('input', '', {type: 'hidden', name: 'csrftoken', id: 'csrf-token'}),
      el('button', 'Sign in', {type: 'submit'}));
    if (message) form.append(el('p', message, {class: 'error', id: 'login-error'}));
    form.addEventListener('submit', signIn);
    main.replaceChildren(form);
  }
  async function signIn(e) {
    e.preventDefault();
    const csrf = await (await fetch('/api/csrf-token', {method: 'POST'})).json();
    document.getElementById('csrf-token').value = csrf.csrf_token;
    const res = await fetch('/api/users/token/login?set_cookie=true', {method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({username: document.getElementById('username').value, password: document.getElementById('password').value, csrf: csrf.csrf_token})});
    if (!res.ok) {
      signedOut('Login failed: ' + res.status);
      return;
    }
    signedIn();
  }
  async function signedIn() {
    const list = el('ul', '', {id: 'ratings'});
    const clear = el('button', 'Clear Ratings', {type: 'button'});
    const out = el('button', 'Logout', {type: 'button'});
    clear.addEventListener('click', async function () { await fetch('/api/ratings', {method: 'DELETE'}); signedIn(); });
    out.addEventListener('click', function () { document.cookie = 'qp_user_token=; Path=/; Expires=Thu, 01 Jan 1970 00:00:01 GMT'; signedOut(''); });
    main.replaceChildren(el('h2', 'Your Pizza Ratings:'), list, clear, out);
    const res = await fetch('/api/ratings');
    const ratings = res.ok ? (await res.json()).ratings : [];
    if (ratings.length === 0) list.append(el('li', 'No ratings yet'));
    ratings.forEach(function (r) { list.append(el('li', 'Rating ID: ' + r.id + ' (stars=' + r.stars + ', pizza_id=' + r.pizza_id + ')')); });
  }
  if (cookie('qp_user_token')) signedIn(); else signedOut('');
})();
</script>
</body></html>`

// quickPizzaAdminPage is the admin page: the login form, prefilled with the
// administrator's name and password, whose "Sign in" logs in (the server sets
// admin_token); logged in, a "Logout" button and the latest recommendations.
const quickPizzaAdminPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>QuickPizza Administration</title>` + quickPizzaStyle + `</head>
<body>
<header><a href="/">QuickPizza</a></header>
<main id="main"></main>
<script>
(function () {
` + quickPizzaCookie + `
  const main = document.getElementById('main');
  function signedOut(message) {
    const form = el('form', '', {id: 'admin-login'});
    form.append(el('h1', 'QuickPizza Administration'),
      el('label', 'Username (hint: admin)', {for: 'username'}), el('input', '', {id: 'username', name: 'username', type: 'text', value: 'admin', required: ''}), el('br'),
      el('label', 'Password (hint: admin)', {for: 'password'}), el('input', '', {id: 'password', name: 'password', type: 'password', value: 'admin', required: ''}), el('br'),
      el('button', 'Sign in', {type: 'submit'}));
    if (message) form.append(el('p', message, {class: 'error', id: 'login-error'}));
    form.addEventListener('submit', signIn);
    main.replaceChildren(form);
  }
  async function signIn(e) {
    e.preventDefault();
    const q = new URLSearchParams({user: document.getElementById('username').value, password: document.getElementById('password').value});
    const res = await fetch('/api/admin/login?' + q, {method: 'POST', credentials: 'same-origin'});
    if (!res.ok) {
      signedOut('Login failed: ' + res.status);
      return;
    }
    signedIn();
  }
  async function signedIn() {
    const out = el('button', 'Logout', {type: 'button'});
    const list = el('ul', '', {id: 'latest'});
    const refresh = el('button', 'Refresh', {type: 'button'});
    out.addEventListener('click', function () { document.cookie = 'admin_token=; Path=/; Expires=Thu, 01 Jan 1970 00:00:01 GMT'; signedOut(''); });
    refresh.addEventListener('click', signedIn);
    main.replaceChildren(out, el('h2', 'Latest pizza recommendations'), list, refresh);
    const res = await fetch('/api/internal/recommendations');
    const pizzas = res.ok ? (await res.json()).pizzas : [];
    if (pizzas.length === 0) list.append(el('li', 'No recommendations yet'));
    pizzas.forEach(function (p, i) {
      list.append(el('li', p.name + ' (tool=' + p.tool + ', ingredients_number=' + p.ingredients.length + ')' + (i === 0 ? ' (newest)' : '')));
    });
  }
  if (cookie('admin_token')) signedIn(); else signedOut('');
})();
</script>
</body></html>`
