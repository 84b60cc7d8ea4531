import { describe, expect, it } from 'vitest';
import { escapeHtml, html, linkable, trusted } from '../../src/console/html';

describe('html', () => {
  it('escapes every interpolated value', () => {
    expect(html`<td title="${`"x" & 'y'`}">${'<script>alert(1)</script>'}</td>`.toString()).toBe(
      '<td title="&quot;x&quot; &amp; &#39;y&#39;">&lt;script&gt;alert(1)&lt;/script&gt;</td>',
    );
  });

  it('nests safe fragments and arrays unescaped, and drops null, undefined and false', () => {
    const rows = ['a<b', 'c'].map((v) => html`<li>${v}</li>`);
    expect(html`<ul>${rows}${null}${undefined}${false}${0}</ul>`.toString()).toBe(
      '<ul><li>a&lt;b</li><li>c</li>0</ul>',
    );
    expect(html`${trusted('<b>')}`.toString()).toBe('<b>');
  });

  it('escapeHtml leaves plain text alone', () => {
    expect(escapeHtml('site-4412:welcome')).toBe('site-4412:welcome');
  });
});

describe('linkable', () => {
  it.each([
    ['http://127.0.0.1:8083/approvals/a?sig=s', true],
    ['https://x.lambda-url.us-east-1.on.aws/approvals/a?sig=s', true],
    ['javascript:alert(1)', false],
    ['data:text/html,hi', false],
    [undefined, false],
  ])('%s -> %s', (url, ok) => expect(linkable(url)).toBe(ok ? url : undefined));
});
