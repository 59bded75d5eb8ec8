import * as fs from 'fs';

const CDK8S_HEADER = 'Validation failed with the following errors:\n  ';

/**
 * The one report of a failed synth: every problem of every construct (construct-time mistakes, validation
 * errors, the app's policy and evolution findings), each once, as `[construct path] message`, and no
 * stack trace — the construct path says where, a trace through cdk8s would not.
 *
 * @internal
 */
export function synthFailure(error: unknown, outdir: string, kept: boolean): Error {
  if (!(error instanceof Error) || !error.message.startsWith(CDK8S_HEADER)) return error as Error;
  const problems = [...new Set(error.message.slice(CDK8S_HEADER.length).split('\n  ').map(atConstructPath))];
  const message =
    `synth found ${problems.length} problem${problems.length === 1 ? '' : 's'} ` +
    `(nothing was written${kept ? `; ${outdir} keeps the last good output` : ''}):\n  ${problems.join('\n  ')}`;
  const failure = new SynthError(message);
  if (!process.env[SYNTH_STACK_ENV]) failure.stack = `SynthError: ${message}`;
  exitCleanlyIfUncaught();
  return failure;
}

/** The error of a failed synth (its message is the whole report). @internal */
export class SynthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SynthError';
  }
}

/** Set to show the stack of a failed synth, as Node prints any uncaught error. */
export const SYNTH_STACK_ENV = 'CDK8S_OPERATOR_STACK';

/**
 * When the app does not catch the {@link SynthError} (the usual `app.synth()` at the end of a program), the process
 * prints its report and exits with code 1: no source line with a caret, no `Node.js v20…` footer. Anything else that
 * reaches the top is left to Node, as before. With CDK8S_OPERATOR_STACK=1 Node prints it as any other error.
 */
function exitCleanlyIfUncaught(): void {
  if (process.env[SYNTH_STACK_ENV] || process.hasUncaughtExceptionCaptureCallback()) return;
  process.setUncaughtExceptionCaptureCallback((err) => {
    process.setUncaughtExceptionCaptureCallback(null);
    if (!(err instanceof SynthError)) {
      process.nextTick(() => {
        throw err;
      }); // Node's own handling, now that this capture is gone
      return;
    }
    fs.writeSync(2, `${err.message}\n`);
    process.exit(1);
  });
}

/**
 * App-wide checks run as validations of the app (path `[]`) and name the construct they concern in
 * their message (`[] policy: [chart/pod] …`, `[] [chart/svc] v1 Service …`); they are shown under that construct
 * like every other problem.
 */
function atConstructPath(line: string): string {
  const m = /^\[\] (?:([a-z]+): )?\[([^\]]*)\] ([\s\S]*)$/.exec(line);
  if (!m) return line;
  return m[1] ? `[${m[2]}] ${m[1]}: ${m[3]}` : `[${m[2]}] ${m[3]}`;
}
