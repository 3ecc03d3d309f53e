#!/usr/bin/env node
/**
 * This machine's npm registry serves only the Linux builds of packages that ship per-platform
 * binaries (biome, rollup), so `npm install` leaves the other platforms' optional entries out of
 * package-lock.json and `npm ci` then refuses the lock as incomplete. This adds those entries
 * with their os/cpu restrictions; npm skips them on Linux without fetching. Run it after any
 * dependency change: `npm run lock:complete`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const pkgs = lock.packages;
const platformOf = (name) => {
  const n = name.split('/').pop();
  const os = ['android','darwin','freebsd','openbsd','win32','linux','openharmony'].find((o) => n.includes(o));
  const cpu = ['arm64','x64','ia32','arm','loong64','ppc64','riscv64','s390x'].find((c) => n.includes(`-${c}`));
  const libc = n.includes('musl') ? ['musl'] : (os === 'linux' && /gnu/.test(n) ? ['glibc'] : undefined);
  return { os, cpu, libc };
};
let added = 0;
for (const [path, entry] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (pkgs[key] || pkgs[`${path}/node_modules/${dep}`]) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (!os || !cpu) { console.log('skip', dep); continue; }
    pkgs[key] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, os: [os], cpu: [cpu === 'arm' ? 'arm' : cpu], ...(libc ? { libc } : {}) };
    added++;
  }
}
const sorted = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
lock.packages = sorted;
writeFileSync('package-lock.json', JSON.stringify(lock, null, 2) + '\n');
console.log('added', added);
