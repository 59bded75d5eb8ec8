/**
 * The Dockerfile subset the controllers' recipes use, parsed into an {@link ImageRecipe}:
 * `FROM`, `WORKDIR`, `COPY <src>... <dest>` (with `--chown=uid:gid`), `USER`, `ENV`, `EXPOSE`,
 * `ENTRYPOINT`/`CMD` (JSON form), `LABEL`, `STOPSIGNAL`. No `RUN`: the images are a base plus files,
 * so building one needs no container runtime. Any other instruction is an error naming its line.
 *
 * @see https://docs.docker.com/reference/dockerfile/
 */

/** One `COPY`: files of the build context into the image. */
export interface CopyStep {
  readonly sources: readonly string[];
  readonly dest: string;
  /** `--chown` owner. @default - root (0:0) */
  readonly uid?: number;
  readonly gid?: number;
}

/** What a Dockerfile says, in order of effect. */
export interface ImageRecipe {
  readonly from: string;
  readonly workdir?: string;
  readonly copies: readonly CopyStep[];
  readonly user?: string;
  readonly env: Readonly<Record<string, string>>;
  readonly exposedPorts: readonly string[];
  readonly entrypoint?: readonly string[];
  readonly cmd?: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly stopSignal?: string;
}

/** A Dockerfile this builder cannot build, with every problem found. */
export class DockerfileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`${file}: ${problems.join('; ')}`);
  }
}

/** Parses `text` (the contents of `file`, for messages). Throws {@link DockerfileError}. */
export function parseDockerfile(text: string, file = 'Dockerfile'): ImageRecipe {
  const problems: string[] = [];
  let from: string | undefined;
  let workdir: string | undefined;
  let user: string | undefined;
  let entrypoint: string[] | undefined;
  let cmd: string[] | undefined;
  let stopSignal: string | undefined;
  const copies: CopyStep[] = [];
  const env: Record<string, string> = {};
  const labels: Record<string, string> = {};
  const exposedPorts: string[] = [];

  for (const { line, text: instruction } of logicalLines(text)) {
    const at = `line ${line}`;
    const m = /^(\S+)\s*(.*)$/s.exec(instruction)!;
    const keyword = m[1].toUpperCase();
    const args = m[2].trim();
    switch (keyword) {
      case 'FROM':
        if (from) problems.push(`${at}: a second FROM (multi-stage builds are not supported)`);
        from = args.split(/\s+/)[0];
        break;
      case 'WORKDIR':
        workdir = workdir && !args.startsWith('/') ? `${workdir.replace(/\/$/, '')}/${args}` : args;
        break;
      case 'COPY': {
        const words = args.split(/\s+/);
        let uid: number | undefined;
        let gid: number | undefined;
        while (words[0]?.startsWith('--')) {
          const flag = words.shift()!;
          const chown = /^--chown=(\d+)(?::(\d+))?$/.exec(flag);
          if (chown) {
            uid = Number(chown[1]);
            gid = Number(chown[2] ?? chown[1]);
          } else {
            problems.push(`${at}: COPY flag '${flag}' is not supported (only --chown=uid:gid)`);
          }
        }
        if (words.length < 2) {
          problems.push(`${at}: COPY needs a source and a destination, got '${args}'`);
          break;
        }
        const dest = words.pop()!;
        copies.push({ sources: words, dest: dest.startsWith('/') ? dest : `${workdir ?? ''}/${dest}`, uid, gid });
        break;
      }
      case 'USER':
        user = args;
        break;
      case 'ENV':
        Object.assign(env, keyValues(args, at, problems));
        break;
      case 'LABEL':
        Object.assign(labels, keyValues(args, at, problems));
        break;
      case 'EXPOSE':
        for (const p of args.split(/\s+/)) {
          if (/^\d+(\/(tcp|udp))?$/.test(p)) exposedPorts.push(p.includes('/') ? p : `${p}/tcp`);
          else problems.push(`${at}: EXPOSE '${p}' is not a port`);
        }
        break;
      case 'ENTRYPOINT':
        entrypoint = jsonArray(args, at, problems);
        cmd = undefined;
        break;
      case 'CMD':
        cmd = jsonArray(args, at, problems);
        break;
      case 'STOPSIGNAL':
        stopSignal = args;
        break;
      default:
        problems.push(
          `${at}: ${keyword} is not supported (this builder needs no container runtime: FROM, WORKDIR, COPY, USER, ENV, LABEL, EXPOSE, ENTRYPOINT, CMD, STOPSIGNAL only)`,
        );
    }
  }
  if (!from) problems.push('no FROM');
  if (problems.length) throw new DockerfileError(file, problems);
  return { from: from!, workdir, copies, user, env, exposedPorts, entrypoint, cmd, labels, stopSignal };
}

/** Instructions with their first line number: comments dropped, `\` continuations joined. */
function logicalLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let current: { line: number; text: string } | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const trimmed = raw.trim();
    if (!current && (trimmed === '' || trimmed.startsWith('#'))) return;
    if (current && trimmed.startsWith('#')) return;
    const continues = trimmed.endsWith('\\');
    const part = continues ? trimmed.slice(0, -1) : trimmed;
    current = current ? { line: current.line, text: `${current.text} ${part}` } : { line: i + 1, text: part };
    if (!continues) {
      out.push(current);
      current = undefined;
    }
  });
  if (current) out.push(current);
  return out;
}

function keyValues(args: string, at: string, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!args.includes('=')) {
    // Legacy `ENV KEY value`.
    const [key, ...rest] = args.split(/\s+/);
    out[key] = rest.join(' ');
    return out;
  }
  const re = /([^\s=]+)=("(?:[^"\\]|\\.)*"|\S*)/g;
  let m: RegExpExecArray | null;
  let consumed = '';
  while ((m = re.exec(args))) {
    out[m[1]] = m[2].startsWith('"') ? JSON.parse(m[2]) : m[2];
    consumed += m[0];
  }
  if (consumed.replace(/\s/g, '').length !== args.replace(/\s/g, '').length) {
    problems.push(`${at}: cannot read key=value pairs from '${args}'`);
  }
  return out;
}

function jsonArray(args: string, at: string, problems: string[]): string[] | undefined {
  try {
    const v = JSON.parse(args);
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  } catch {
    /* reported below */
  }
  problems.push(`${at}: only the JSON (exec) form is supported, e.g. ["node", "main.js"], got '${args}'`);
  return undefined;
}
