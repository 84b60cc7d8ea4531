import type * as Re2js from 're2js';
import { lazyRequire } from './lazy-require';

const re2jsPackage = lazyRequire<typeof Re2js>('re2js');

/** RE2's linear-time regexes (re2js), loaded with the first pattern compiled (see lazy-require.ts). */
export const re2js = (): typeof Re2js.RE2JS => re2jsPackage().RE2JS;
