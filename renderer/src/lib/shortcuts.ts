// Keyboard shortcuts of the live view, as a pure mapping from a key event to an action (testable without
// a DOM). Keys typed into a form field are never taken.

export type ShortcutAction =
  | 'pause'
  | 'zoomIn'
  | 'zoomOut'
  | 'resetZoom'
  | 'colormap'
  | 'snapshot'
  | 'help'
  | 'closeHelp'
  | 'resetPeak'
  | 'logAxis'
  | 'panLeft'
  | 'panRight'
  | 'record'
  | 'autoRange'
  | 'addMarker'
  | 'snapMarker'
  | 'nextPeak'
  | 'removeMarker';

export interface KeyLike {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  target?: EventTarget | { tagName?: string; isContentEditable?: boolean; type?: string } | null;
}

export const SHORTCUTS: Array<{ keys: string; action: ShortcutAction; label: string }> = [
  { keys: 'Space', action: 'pause', label: 'Pause / resume the waterfall' },
  { keys: '+ / −', action: 'zoomIn', label: 'Zoom in / out in frequency (wheel over the plot)' },
  { keys: '← / →', action: 'panLeft', label: 'Pan in frequency (drag the plot)' },
  { keys: '0', action: 'resetZoom', label: 'Show everything (double-click the plot)' },
  { keys: 'Shift + wheel', action: 'zoomIn', label: 'Zoom in time; drag up/down to scroll back' },
  { keys: 'C', action: 'colormap', label: 'Next colormap' },
  { keys: 'L', action: 'logAxis', label: 'Linear / logarithmic frequency axis' },
  { keys: 'P', action: 'resetPeak', label: 'Reset max and min hold' },
  { keys: 'A', action: 'autoRange', label: 'Auto range: fit the levels to the noise floor and the peaks' },
  { keys: 'M', action: 'addMarker', label: 'Place a marker on the strongest peak not marked yet' },
  { keys: 'K', action: 'snapMarker', label: 'Move the selected marker to the peak near it' },
  { keys: 'N', action: 'nextPeak', label: 'Move the selected marker to the next lower peak' },
  { keys: 'Delete', action: 'removeMarker', label: 'Remove the selected marker' },
  { keys: 'S', action: 'snapshot', label: 'Save a PNG snapshot' },
  { keys: 'R', action: 'record', label: 'Record the source to a file / stop recording' },
  { keys: '?', action: 'help', label: 'This help' },
];

const TEXT_INPUTS = new Set(['text', 'number', 'search', 'email', 'url', 'password', 'tel']);

function inFormField(t: KeyLike['target']): boolean {
  if (!t) return false;
  const target = t as { tagName?: string; isContentEditable?: boolean; type?: string };
  if (target.isContentEditable) return true;
  const tag = target.tagName?.toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  return tag === 'INPUT' && TEXT_INPUTS.has((target.type ?? 'text').toLowerCase());
}

export function shortcutFor(e: KeyLike): ShortcutAction | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  if (e.key === 'Escape') return 'closeHelp';
  if (inFormField(e.target)) return null;
  switch (e.key) {
    case ' ':
    case 'Spacebar':
      return 'pause';
    case '+':
    case '=':
      return 'zoomIn';
    case '-':
    case '_':
      return 'zoomOut';
    case '0':
      return 'resetZoom';
    case 'ArrowLeft':
      return 'panLeft';
    case 'ArrowRight':
      return 'panRight';
    case 'c':
    case 'C':
      return 'colormap';
    case 's':
    case 'S':
      return 'snapshot';
    case 'l':
    case 'L':
      return 'logAxis';
    case 'p':
    case 'P':
      return 'resetPeak';
    case 'r':
    case 'R':
      return 'record';
    case 'a':
    case 'A':
      return 'autoRange';
    case 'm':
    case 'M':
      return 'addMarker';
    case 'k':
    case 'K':
      return 'snapMarker';
    case 'n':
    case 'N':
      return 'nextPeak';
    case 'Delete':
    case 'Backspace':
      return 'removeMarker';
    case '?':
      return 'help';
    default:
      return null;
  }
}
