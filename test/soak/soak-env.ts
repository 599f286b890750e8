// The reliability suite runs short in `npm test` (a smoke version) and in full with `npm run soak`
// (SOAK=1). Each suite reads its sizes from here.
export const FULL = process.env.SOAK === "1";

/** `full` under npm run soak, `smoke` in npm test */
export const size = (smoke: number, full: number): number => (FULL ? full : smoke);
