/** A command-line option of a bench script: `--name value` or `--name=value`, else `fallback`. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const eq = process.argv.find((a) => a.startsWith(`--${name}=`));
  return eq ? eq.split('=')[1] : i >= 0 ? process.argv[i + 1] : fallback;
}
