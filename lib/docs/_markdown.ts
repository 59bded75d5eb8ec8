/** Text safe inside a Markdown table cell: pipes escaped, newlines as `<br>`. @internal */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

/** Inline code that survives backticks in the value (uses a longer fence when needed). @internal */
export function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Inline code for a table cell (pipes escaped). @internal */
export function codeCell(text: string): string {
  return code(text).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** A Markdown table; every cell already escaped. @internal */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}
