/** A small dependency-free SVG line chart: one panel per metric, one line per series. */
export interface Series {
  readonly name: string;
  readonly points: ReadonlyArray<readonly [number, number]>;
}

export interface Panel {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd'];
const W = 420;
const H = 260;
const PAD = { left: 60, right: 15, top: 30, bottom: 45 };

export function renderSvg(panels: readonly Panel[]): string {
  const body = panels
    .map((p, i) => `<g transform="translate(${(i % 2) * W},${Math.floor(i / 2) * H})">${panel(p)}</g>`)
    .join('\n');
  const rows = Math.ceil(panels.length / 2);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W * 2}" height="${H * rows}" font-family="sans-serif" font-size="11">\n<rect width="100%" height="100%" fill="white"/>\n${body}\n</svg>\n`;
}

function panel(p: Panel): string {
  const all = p.series.flatMap((s) => s.points);
  const xMax = Math.max(1, ...all.map(([x]) => x));
  const yMax = Math.max(1e-9, ...all.map(([, y]) => y)) * 1.1;
  const px = (x: number) => PAD.left + (x / xMax) * (W - PAD.left - PAD.right);
  const py = (y: number) => H - PAD.bottom - (y / yMax) * (H - PAD.top - PAD.bottom);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const y = yMax * f;
    return `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${py(y)}" y2="${py(y)}" stroke="#eee"/><text x="${PAD.left - 5}" y="${py(y) + 4}" text-anchor="end">${format(y)}</text>`;
  });
  const lines = p.series.map((s, i) => {
    const color = COLORS[i % COLORS.length];
    const pts = s.points.map(([x, y]) => `${px(x)},${py(y)}`).join(' ');
    const dots = s.points
      .map(
        ([x, y]) =>
          `<circle cx="${px(x)}" cy="${py(y)}" r="3" fill="${color}"><title>${s.name}: ${x} → ${format(y)}</title></circle>`,
      )
      .join('');
    const legend = `<text x="${PAD.left + 8}" y="${PAD.top + 14 + i * 14}" fill="${color}">${escape(s.name)}</text>`;
    return `<polyline points="${pts}" fill="none" stroke="${color}" stroke-width="2"/>${dots}${legend}`;
  });
  const xTicks = [...new Set(all.map(([x]) => x))].map(
    (x) => `<text x="${px(x)}" y="${H - PAD.bottom + 15}" text-anchor="middle">${x}</text>`,
  );
  return [
    `<text x="${W / 2}" y="18" text-anchor="middle" font-weight="bold">${escape(p.title)}</text>`,
    ...ticks,
    ...xTicks,
    ...lines,
    `<line x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${H - PAD.bottom}" stroke="#333"/>`,
    `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${H - PAD.bottom}" y2="${H - PAD.bottom}" stroke="#333"/>`,
    `<text x="${W / 2}" y="${H - 8}" text-anchor="middle">${escape(p.xLabel)}</text>`,
    `<text transform="translate(14,${H / 2}) rotate(-90)" text-anchor="middle">${escape(p.yLabel)}</text>`,
  ].join('\n');
}

function format(v: number): string {
  return v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toFixed(2);
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}
