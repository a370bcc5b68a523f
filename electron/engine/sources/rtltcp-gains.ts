// The tuners an rtl_tcp server names in its greeting, and the gain steps each one has (tenths of a dB, as
// command 0x04 takes them). A manual gain is snapped to the nearest step of the connected tuner, so the
// gain asked for is the gain applied; an unknown tuner gets the value as asked.

/** Tuner type numbers of the rtl_tcp greeting. */
export const TUNER_NAMES: Readonly<Record<number, string>> = {
  0: 'unknown tuner',
  1: 'E4000',
  2: 'FC0012',
  3: 'FC0013',
  4: 'FC2580',
  5: 'R820T',
  6: 'R828D',
};

/** The R820T/R828D LNA + mixer gain steps (tenths of a dB). */
const R82XX = [
  0, 9, 14, 27, 37, 77, 87, 125, 144, 157, 166, 197, 207, 229, 254, 280, 297, 328, 338, 364, 372, 386, 402,
  421, 434, 439, 445, 480, 496,
];

/** Gain steps per tuner type (tenths of a dB, ascending). */
export const TUNER_GAINS: Readonly<Record<number, readonly number[]>> = {
  1: [-10, 15, 40, 65, 90, 115, 140, 165, 190, 215, 240, 290, 340, 420],
  2: [-99, -40, 71, 179, 192],
  3: [
    -99, -73, -65, -63, -60, -58, -54, 58, 61, 63, 65, 67, 68, 70, 71, 179, 181, 182, 184, 186, 188, 191, 197,
  ],
  4: [0],
  5: R82XX,
  6: R82XX,
};

/** The tuner's name ("R820T"), or "tuner N" for a number not listed. */
export function tunerName(type: number): string {
  return TUNER_NAMES[type] ?? `tuner ${type}`;
}

/** The gain (tenths of a dB) to send for `db`: the nearest step of the tuner's table (the lower one on a
 * tie), or `db` rounded to tenths for a tuner without a table. */
export function snapGain(tunerType: number, db: number): number {
  const tenths = Math.round(db * 10);
  const table = TUNER_GAINS[tunerType];
  if (!table || table.length === 0) return tenths;
  let best = table[0];
  for (const g of table) if (Math.abs(g - tenths) < Math.abs(best - tenths)) best = g;
  return best;
}
