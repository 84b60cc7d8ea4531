import { chromium } from 'playwright-core';
import { startLocal } from './packages/local/src/server';
import { exampleApp } from './test/fixtures/example-app';
const local = await startLocal({ ...(await exampleApp()), port: 0, dataDir: '/tmp/walk-debug-data', log: () => undefined });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: Number(process.argv[3] ?? 390), height: 900 } });
await page.goto(`${local.url}${process.argv[2] ?? '/'}`);
console.log(await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`).slice(0, 15)));
await browser.close(); await local.stop();
