/**
 * Serves raw.githubusercontent.com's layout (`/<owner>/<name>/<commit>/<path>`) from local git clones at
 * `<root>/<owner>/<name>`, for `npm run corpus:fetch -- --base-url` on a machine that cannot reach GitHub but has
 * the repositories (clones with their history: the pinned commits must be in them).
 *
 *   npx tsx tools/realworld-corpus/serve-git.ts --root ~/src --port 8080
 */
import { execFile } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** A server answering each raw path with `git show <commit>:<path>` in the clone it names; 404 where git has none. */
export function serveGitClones(root: string): Server {
  return createServer((request, response) => {
    const parts = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)
      .split('/')
      .filter(Boolean);
    const [owner, name, commit, ...path] = parts;
    if (!owner || !name || !/^[0-9a-f]{40}$/.test(commit ?? '') || path.length === 0 || parts.includes('..')) {
      response.writeHead(400).end('want /<owner>/<name>/<commit>/<path>\n');
      return;
    }
    execFile(
      'git',
      ['-C', join(root, owner, name), 'show', `${commit}:${path.join('/')}`],
      { encoding: 'buffer', maxBuffer: 64 << 20 },
      (error, stdout) => {
        if (error) response.writeHead(404).end(`${owner}/${name}@${commit}: no ${path.join('/')}\n`);
        else response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(stdout);
      },
    );
  });
}

if (require.main === module) {
  const { values } = parseArgs({ options: { root: { type: 'string' }, port: { type: 'string', default: '8080' } } });
  if (!values.root) {
    console.error('serve-git: --root DIR (the clones at DIR/<owner>/<name>)');
    process.exit(1);
  }
  const root = resolve(values.root);
  serveGitClones(root).listen(Number(values.port), '127.0.0.1', () =>
    console.log(`serving ${root} at http://127.0.0.1:${values.port}`),
  );
}
