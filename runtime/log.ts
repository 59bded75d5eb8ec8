/**
 * Structured JSON logging for the controller runtime.
 *
 * Expected flow: the manager creates one root {@link Logger}; every component derives a child with
 * its own fields (`controller`, `resource`, `namespace/name`) so each line can be filtered.
 *
 * Guarantees: one JSON object per line with `ts`, `level`, `msg` and the merged fields; errors are
 * rendered as `{message, name, code?}` so they survive `JSON.stringify`.
 *
 * Caveats: writes synchronously to the given sink (stderr by default); keep hot paths at `debug`.
 */

/** Log levels, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Extra key/value pairs attached to a log line. */
export type LogFields = Record<string, unknown>;

/** A leveled, structured logger. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /**
   * Minimum level written.
   * @default - `LOG_LEVEL` environment variable, else 'info'
   */
  readonly level?: LogLevel;
  /**
   * Where lines go.
   * @default - process.stderr
   */
  readonly sink?: (line: string) => void;
  /** Fields on every line. */
  readonly fields?: LogFields;
}

/** Serialises errors so that they show up in JSON output. */
function normalize(value: unknown): unknown {
  if (value instanceof Error) {
    const out: Record<string, unknown> = { name: value.name, message: value.message };
    const code = (value as { code?: unknown }).code;
    if (code !== undefined) out.code = code;
    return out;
  }
  return value;
}

function parseLevel(value: string | undefined): LogLevel | undefined {
  return value && value in LEVEL_ORDER ? (value as LogLevel) : undefined;
}

/** Creates a JSON logger. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? parseLevel(process.env.LOG_LEVEL) ?? 'info';
  const sink = options.sink ?? ((line: string) => process.stderr.write(line + '\n'));
  return new JsonLogger(LEVEL_ORDER[level], sink, options.fields ?? {});
}

/** A logger that drops everything (default in unit tests and for library users who bring none). */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};

class JsonLogger implements Logger {
  constructor(
    private readonly min: number,
    private readonly sink: (line: string) => void,
    private readonly fields: LogFields,
  ) {}

  debug(msg: string, fields?: LogFields): void {
    this.write('debug', msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.write('info', msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.write('warn', msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.write('error', msg, fields);
  }

  child(fields: LogFields): Logger {
    return new JsonLogger(this.min, this.sink, { ...this.fields, ...fields });
  }

  private write(level: LogLevel, msg: string, fields?: LogFields): void {
    if (LEVEL_ORDER[level] < this.min) return;
    const line: Record<string, unknown> = { ts: new Date().toISOString(), level, msg };
    for (const [k, v] of Object.entries({ ...this.fields, ...fields })) line[k] = normalize(v);
    this.sink(JSON.stringify(line));
  }
}
