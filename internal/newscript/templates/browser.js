import { browser } from 'k6/browser';
import { check } from 'k6';

export const options = {
  scenarios: {
    ui: {
      executor: 'shared-iterations',
      options: { browser: { type: 'chromium' } },
    },
  },{{ if .ProjectID }}
  cloud: {
    projectID: {{ .ProjectID }},
    name: '{{ .ScriptName }}',
  },{{ end }}
};

export default async function () {
  const page = await browser.newPage();
  try {
    await page.goto('https://quickpizza.grafana.com');
    const heading = await page.locator('h1').textContent();
    check(heading, { 'the page has a heading': (h) => h !== '' });
  } finally {
    await page.close();
  }
}
