// Small SVG icons made with the DOM (no font has every media glyph, and some phones draw
// ⏮ ⏸ as coloured emoji).

const NS = "http://www.w3.org/2000/svg";

const PATHS: Record<string, string> = {
  first: "M5 4h2.5v16H5zM20 4v16L8.5 12z",
  prevDeal: "M12 4v16L1.5 12zM23 4v16L12.5 12z",
  back: "M17 4v16L6 12z",
  play: "M7 4l13 8-13 8z",
  pause: "M6 4h4.5v16H6zM13.5 4H18v16h-4.5z",
  forward: "M7 4l11 8-11 8z",
  nextDeal: "M1 4l10.5 8L1 20zM12 4l10.5 8L12 20z",
  last: "M4 4l11.5 8L4 20zM16.5 4H19v16h-2.5z",
};

export function icon(name: keyof typeof PATHS | string): SVGSVGElement {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "22");
  svg.setAttribute("height", "22");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.setAttribute("class", "svg-icon");
  const path = document.createElementNS(NS, "path");
  path.setAttribute("d", PATHS[name] ?? "");
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  return svg;
}
