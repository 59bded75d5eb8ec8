/*
 * CronJob `timeZone`s and `TZ=` prefixes as the apiserver's Go runtime loads them (`time.LoadLocation`, the IANA
 * database the kube-apiserver embeds): checked here against the ICU database Node carries, which knows the same
 * names (canonical ones and their aliases). ICU matches names case-insensitively, Go does not: a name that ICU
 * resolves to a canonical one differing only in case is unknown to Go.
 */

/** `time.LoadLocation(name)`'s error, or undefined when Go knows the zone. @internal */
export function loadLocationError(name: string): string | undefined {
  if (name === '' || name === 'UTC' || name === 'Local') return undefined;
  const unknown = `unknown time zone ${name}`;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return unknown;
  }
  if (resolved !== name && resolved.toLowerCase() === name.toLowerCase()) return unknown;
  return undefined;
}
