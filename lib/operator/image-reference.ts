/**
 * Checks that a container image is pinned: a digest (`repo@sha256:<64 hex>`) or a tag other than
 * `latest`. Returns the problem, or undefined when the image is pinned.
 *
 * @internal
 */
export function imagePinningProblem(image: string): string | undefined {
  if (!image || /\s/.test(image)) return `must be a container image reference, got '${image}'`;
  const at = image.indexOf('@');
  if (at >= 0) {
    const digest = image.slice(at + 1);
    return /^sha256:[a-f0-9]{64}$/.test(digest) ? undefined : `digest must be sha256:<64 hex digits>, got '${image}'`;
  }
  const lastSlash = image.lastIndexOf('/');
  const colon = image.indexOf(':', lastSlash + 1); // a colon before the last slash is a registry port
  if (colon < 0) return `must be pinned to a tag or digest (an untagged image means 'latest'), got '${image}'`;
  const tag = image.slice(colon + 1);
  if (tag === 'latest') return `must not use the 'latest' tag; pin a version or a digest, got '${image}'`;
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(tag)) return `tag is not valid, got '${image}'`;
  return undefined;
}
