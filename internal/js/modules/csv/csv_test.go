package csv_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// data is the CSV file of the tests: a header and four records.
const data = "name,age,city\nJohn,30,New York\nJane,25,\"Los Angeles, CA\"\nJim,41,Paris\nJoan,52,Oslo\n"

// TestParse parses the file at once with each option, in the init context (awaited
// in the iteration), and reads the records as a read-only array.
func TestParse(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{
		"data.csv": data,
		"semi.csv": "a;b\n1;2\n",
		"script.js": `
import { check } from 'k6';
import { open } from 'k6/experimental/fs';
import csv from 'k6/experimental/csv';

const file = open('data.csv');
const semi = open('semi.csv');
const all = file.then((f) => csv.parse(f));
const objects = file.then((f) => csv.parse(f, { asObjects: true }));
const skipped = file.then((f) => csv.parse(f, { skipFirstLine: true }));
const window = file.then((f) => csv.parse(f, { skipFirstLine: true, fromLine: 2, toLine: 3 }));
const semis = semi.then((f) => csv.parse(f, { delimiter: ';' }));
const byPath = csv.parse('data.csv', { toLine: 1 });

const json = (v) => JSON.stringify(v);

export default async function () {
  const records = await all;
  check(records, {
    'length': (r) => r.length === 5,
    'header is record 0': (r) => json(r[0]) === json(['name', 'age', 'city']),
    'quoted field': (r) => json(r[2]) === json(['Jane', '25', 'Los Angeles, CA']),
    'outside is undefined': (r) => r[5] === undefined,
    'array methods': (r) => r.map((x) => x[0]).join() === 'name,John,Jane,Jim,Joan',
    'elements are frozen': (r) => Object.isFrozen(r[1]),
  });
  let writeErr = '';
  try { records[0] = 1; } catch (e) { writeErr = String(e); }
  check(writeErr, { 'read-only': (e) => e.startsWith('TypeError') && e.includes('read-only') });
  check(await objects, {
    'asObjects': (r) => r.length === 4 && json(r[0]) === json({ name: 'John', age: '30', city: 'New York' }) && r[3].city === 'Oslo',
  });
  check(await skipped, { 'skipFirstLine': (r) => r.length === 4 && r[0][0] === 'John' });
  check(await window, { 'fromLine and toLine': (r) => json(r.map((x) => x[0])) === json(['Jane', 'Jim']) });
  check(await semis, { 'delimiter': (r) => json(r[1]) === json(['1', '2']) });
  check(await byPath, { 'a path for the file': (r) => r.length === 2 && r[1][2] === 'New York' });
}
`})
	h.Iterate(t)
	h.RequireChecks(t, 12)
}

// TestParser streams the records with next() and each option, across iterations.
func TestParser(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{
		"data.csv": data,
		"script.js": `
import { check } from 'k6';
import { open } from 'k6/experimental/fs';
import csv from 'k6/experimental/csv';

const file = open('data.csv');
const json = (v) => JSON.stringify(v);

async function drain(parser) {
  const out = [];
  for (;;) {
    const { done, value } = await parser.next();
    if (done) {
      out.push(value === undefined ? 'done' : 'value at the end');
      return out;
    }
    out.push(value);
  }
}

export default async function () {
  const f = await file;
  check(await drain(new csv.Parser(f)), {
    'every record then done': (r) => r.length === 6 && json(r[0]) === json(['name', 'age', 'city']) && r[5] === 'done',
  });
  check(await drain(new csv.Parser(f, { asObjects: true })), {
    'asObjects': (r) => r.length === 5 && r[1].city === 'Los Angeles, CA' && r[4] === 'done',
  });
  check(await drain(new csv.Parser(f, { skipFirstLine: true, fromLine: 2, toLine: 8 })), {
    'skipFirstLine, fromLine, toLine past the end': (r) => json(r) === json([['Jane', '25', 'Los Angeles, CA'], ['Jim', '41', 'Paris'], ['Joan', '52', 'Oslo'], 'done']),
  });
  const p = new csv.Parser(f, { toLine: 0 });
  const first = await p.next(), second = await p.next(), third = await p.next();
  check(null, {
    'toLine 0 reads one record': () => !first.done && first.value[0] === 'name' && second.done && third.done,
    'instanceof Parser': () => p instanceof csv.Parser,
  });
}
`})
	h.Iterate(t)
	h.RequireChecks(t, 5)
}

// TestBadInput: bad options and arguments throw (Parser) or reject (parse) with errors
// naming what is wrong; a malformed file names its line.
func TestBadInput(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{
		"data.csv":   data,
		"bad.csv":    "a,b\n1,\"2\n3,4\n",
		"ragged.csv": "a,b\n1,2,3\n",
		"empty.csv":  "",
		"script.js": `
import { check } from 'k6';
import { open } from 'k6/experimental/fs';
import csv from 'k6/experimental/csv';

const files = Promise.all(['data.csv', 'bad.csv', 'ragged.csv', 'empty.csv'].map((p) => open(p)));

async function failure(f) {
  try { await f(); } catch (e) { return String(e); }
  return 'no error';
}

export default async function () {
  const [f, bad, ragged, empty] = await files;
  const e = {
    both: await failure(() => new csv.Parser(f, { asObjects: true, skipFirstLine: true })),
    from: await failure(() => csv.parse(f, { asObjects: true, fromLine: 1 })),
    delim: await failure(() => csv.parse(f, { delimiter: ';;' })),
    order: await failure(() => new csv.Parser(f, { fromLine: 3, toLine: 1 })),
    negative: await failure(() => csv.parse(f, { fromLine: -1 })),
    notFile: await failure(() => csv.parse({ path: 'data.csv' })),
    noFile: await failure(() => new csv.Parser()),
    quote: await failure(() => csv.parse(bad)),
    fields: await failure(() => new csv.Parser(ragged, { asObjects: true }).next()),
    noHeader: await failure(() => csv.parse(empty, { asObjects: true })),
    pathInVU: await failure(() => csv.parse('data.csv')),
    noNew: await failure(() => csv.Parser(f)),
  };
  check(e, {
    'asObjects with skipFirstLine': (e) => e.both.includes('asObjects and skipFirstLine cannot be used together'),
    'asObjects with fromLine': (e) => e.from.includes('asObjects and fromLine > 0 cannot be used together'),
    'delimiter of two characters': (e) => e.delim.includes('delimiter must be a single character'),
    'toLine before fromLine': (e) => e.order.includes('toLine (1) must not be before fromLine (3)'),
    'negative fromLine': (e) => e.negative.includes('fromLine must be a whole number'),
    'not a File': (e) => e.notFile.startsWith('TypeError') && e.notFile.includes('expected a File'),
    'no file': (e) => e.noFile.startsWith('TypeError'),
    'malformed CSV names the file and line': (e) => e.quote.includes('bad.csv') && e.quote.includes('line 2'),
    'record and header differ': (e) => e.fields.includes('ragged.csv:2') && e.fields.includes('3 fields, the header has 2'),
    'asObjects without a header': (e) => e.noHeader.includes('asObjects needs a header line'),
    'a path outside the init context': (e) => e.pathInVU.includes('init context'),
    'Parser without new': (e) => e.noNew.startsWith('TypeError') && e.noNew.includes('use new csv.Parser'),
  });
}
`})
	h.Iterate(t)
	h.RequireChecks(t, 12)
}

// TestParsedOncePerProcess: two VUs parsing the same file with the same options share
// one parse; each VU's Parser reads from the first record.
func TestParsedOncePerProcess(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{
		"data.csv": data,
		"script.js": `
import { check } from 'k6';
import { open } from 'k6/experimental/fs';
import csv from 'k6/experimental/csv';
const file = open('data.csv');
const records = file.then((f) => csv.parse(f, { skipFirstLine: true }));
const parser = file.then((f) => new csv.Parser(f, { skipFirstLine: true }));
export default async function () {
  const r = await records;
  const { value } = await (await parser).next();
  check(null, { ['VU ' + __VU]: () => r.length === 4 && r[3][0] === 'Joan' && value[0] === 'John' });
}
`})
	for _, vu := range h.VUs(t, 2) {
		require.True(t, vu.Iterate(context.Background()))
	}
	h.RequireChecks(t, 2)
}

// TestExamples runs k6's examples/experimental/csv-parse.js and csv-parser.js: ten
// iterations each logging one record. They await at the top level: they run once the
// runtime has top-level await.
func TestExamples(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "testdata", "realworld", "k6", "examples", "experimental")
	for name, want := range map[string][]string{
		// csv.parse's records include the header: iteration 0 logs it.
		"csv-parse.js": {`["firstname","lastname","age"]`, `["fariha","ehlenfeldt","72"]`, `["fiadh-rose","iravani","31"]`},
		// Parser.next() logs done (false) and the record; the header first.
		"csv-parser.js": {`false ["firstname","lastname","age"]`, `false ["aynoor","hisaw","30"]`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			out := modulestest.RunTest(t, filepath.Join(dir, name), nil, modulestest.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			require.NoError(t, out.Err)
			require.Equal(t, 0, out.ExitCode)
			require.Regexp(t, `iterations\.+: 10 `, out.Summary)
			// The text handler quotes the message: its quotes are escaped.
			text := strings.ReplaceAll(logs.String(), `\"`, `"`)
			for _, line := range want {
				require.Contains(t, text, line)
			}
		})
	}
}
