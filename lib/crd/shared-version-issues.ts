import { formatIssue, Issue } from '../apimachinery/issue';

const VERSION_PATH = /^spec\.versions\[(\d+)\](.*)$/;

/**
 * Formats a CRD's issues, each once: versions built from the same schema share their problems, and listing the
 * same mistake for `spec.versions[0]`, `[1]` and `[2]` only hides the others. An issue found in several versions
 * (same place inside the version, same message, same value) is shown once, at the first version's path, naming
 * every version that has it.
 * @internal
 */
export function formatCrdIssues(issues: readonly Issue[], versionNames: readonly string[]): string[] {
  const groups = new Map<string, { first: Issue; versions: string[] }>();
  const lines: Array<string | { key: string }> = [];
  for (const issue of issues) {
    const m = VERSION_PATH.exec(issue.path);
    if (!m) {
      lines.push(formatIssue(issue));
      continue;
    }
    const key = JSON.stringify([m[2], issue.message, issue.value, issue.severity ?? 'error']);
    const version = versionNames[Number(m[1])] ?? `#${m[1]}`;
    const group = groups.get(key);
    if (group) {
      group.versions.push(version);
      continue;
    }
    groups.set(key, { first: issue, versions: [version] });
    lines.push({ key });
  }
  return lines.map((line) => {
    if (typeof line === 'string') return line;
    const { first, versions } = groups.get(line.key)!;
    const formatted = formatIssue(first);
    return versions.length > 1 ? `${formatted} (the same in versions ${versions.join(', ')})` : formatted;
  });
}
