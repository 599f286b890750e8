// Value parsers for commander options: a bad value is rejected by commander with the option's
// name and the reason, before any command runs.
import { InvalidArgumentError } from "commander";

export function intArg(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(max === Number.MAX_SAFE_INTEGER ? `expected an integer >= ${min}` : `expected an integer from ${min} to ${max}`);
    }
    return n;
  };
}

export function numArg(min: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min) throw new InvalidArgumentError(`expected a number >= ${min}`);
    return n;
  };
}
