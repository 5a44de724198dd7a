// node size.mjs [DIST] — prints the gzip size of the initial JavaScript (the scripts and module
// preloads index.html names) and of the largest lazily loaded chunk, and fails when the initial
// JavaScript is over 250 KB or a lazy chunk over 170 KB (gzip level 9, KB = 1024 bytes).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = process.argv[2] ?? new URL('./dist', import.meta.url).pathname;
const limits = { initial: 250 * 1024, lazy: 170 * 1024 };
const gz = (f) => gzipSync(readFileSync(join(dist, f)), { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

const html = readFileSync(join(dist, 'index.html'), 'utf8');
const initial = new Set([...html.matchAll(/(?:src|href)="\/admin\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]));
const all = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.js')).map((f) => `assets/${f}`);
const initialBytes = [...initial].reduce((n, f) => n + gz(f), 0);
const lazy = all.filter((f) => !initial.has(f)).map((f) => [f, gz(f)]).sort((a, b) => b[1] - a[1]);
const [largest, largestBytes] = lazy[0] ?? ['(none)', 0];

console.log(`initial JS: ${kb(initialBytes)} gzip (${initial.size} file(s); limit ${kb(limits.initial)})`);
console.log(`largest lazy chunk: ${largest} ${kb(largestBytes)} gzip (${lazy.length} lazy chunk(s); limit ${kb(limits.lazy)})`);
let ok = initial.size > 0;
if (initialBytes > limits.initial) { console.error('the initial JavaScript is over its limit'); ok = false; }
if (largestBytes > limits.lazy) { console.error(`${largest} is over the lazy-chunk limit`); ok = false; }
process.exit(ok ? 0 : 1);
