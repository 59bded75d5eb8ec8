// jest maps `prettier` to this file (moduleNameMapper in .projenrc.ts). Prettier 3's CommonJS entry loads its ES
// module build with import(), which jest's VM runs only under --experimental-vm-modules, and under that flag jest
// keeps every test file's module registry alive (jestjs/jest#14605): its workers grew by 10-25 MB a file, to 1.6-2 GB
// by the end of a run, and took more CPU for it. This module runs the same prettier (the package's own CommonJS
// entry, found by Node's resolver) in a worker thread, outside jest's VM, and offers the functions that entry exports
// (json-schema-to-typescript calls `format`).
'use strict';
const { createRequire } = require('node:module');
const { pathToFileURL } = require('node:url');
const { Worker } = require('node:worker_threads');

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const prettier = import(workerData).then((m) => m.default);
parentPort.on('message', ({ id, name, args }) => {
  prettier
    .then((p) => p[name](...args))
    .then(
      (result) => parentPort.postMessage({ id, result }),
      (e) => parentPort.postMessage({ id, error: { name: e.name, message: e.message, stack: e.stack } }),
    );
});
`;

let worker;
let nextId = 0;
const pending = new Map();

function start() {
  const entry = createRequire(__filename).resolve('prettier');
  worker = new Worker(WORKER_SOURCE, { eval: true, workerData: pathToFileURL(entry).href });
  worker.on('message', ({ id, result, error }) => {
    const call = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) worker.unref();
    if (error) call.reject(Object.assign(new Error(error.message), error));
    else call.resolve(result);
  });
  worker.on('error', (e) => {
    for (const call of pending.values()) call.reject(e);
    pending.clear();
    worker = undefined;
  });
}

function call(name, args) {
  if (!worker) start();
  const id = nextId++;
  // The thread holds its process only while a call waits for its answer (unref'd when the last answer came): a
  // finished test file's jest worker must be able to exit with it running. A worker unref'd once at its start, before
  // its 'message' listener (which refs the port again), kept every jest worker that had used prettier alive at the end
  // of the run (jest: "A worker process has failed to exit gracefully").
  if (pending.size === 0) worker.ref();
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, name, args });
  });
}

// the async functions of prettier's CommonJS entry (node_modules/prettier/index.cjs)
for (const name of [
  'formatWithCursor',
  'format',
  'check',
  'resolveConfig',
  'resolveConfigFile',
  'clearConfigCache',
  'getFileInfo',
  'getSupportInfo',
]) {
  exports[name] = (...args) => call(name, args);
}
