#!/usr/bin/env node
// What kind of host a CI run had, in the figures that tell machines apart where CI's time goes
// (bench/latest/ci-time/README.md, "What the slow host is like"): the cost of a page fault (first touch of fresh
// anonymous memory, zeroing included) and of starting a process (fork + exec of /bin/true, waited for), also from a
// process holding 256 MiB more. CI's work is mostly
// Go and Node processes that allocate and start processes (control planes, kubectl, probes), so its CPU-seconds follow
// these two rather than the speed of plain arithmetic. Plain JavaScript: runs before `npm ci` with no dependency.
//   node tools/ci-time/host-speed.js      -> {"pageFaultUs":…,"spawnMs":…,"spawnMsHolding256MiB":…,"load1":…}
'use strict';
const { spawnSync } = require('node:child_process');
const { loadavg } = require('node:os');

const PAGE = 4096;
const BYTES = 256 << 20;

/** Microseconds per 4 KiB page of a fresh 256 MiB buffer, written once per page. */
function pageFaultUs() {
  const started = process.hrtime.bigint();
  const buffer = Buffer.allocUnsafeSlow(BYTES);
  for (let i = 0; i < buffer.length; i += PAGE) buffer[i] = 1;
  return Number(process.hrtime.bigint() - started) / 1e3 / (BYTES / PAGE);
}

/** Milliseconds per fork + exec + wait of /bin/true. */
function spawnMs(count) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) spawnSync('/bin/true');
  return Number(process.hrtime.bigint() - started) / 1e6 / count;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load1 = loadavg()[0];
const faultUs = median([pageFaultUs(), pageFaultUs(), pageFaultUs()]);
const smallMs = median([spawnMs(50), spawnMs(50), spawnMs(50)]);
// the same from a process holding 256 MiB more (a jest worker, a suite's runner): libuv starts a child with fork(),
// which copies the parent's page tables before exec throws them away
const held = Buffer.alloc(BYTES, 1);
const bigMs = median([spawnMs(20), spawnMs(20), spawnMs(20)]);
held.fill(0); // still held while the spawns ran
console.log(
  JSON.stringify({
    pageFaultUs: +faultUs.toFixed(2),
    spawnMs: +smallMs.toFixed(2),
    spawnMsHolding256MiB: +bigMs.toFixed(2),
    load1,
  }),
);
