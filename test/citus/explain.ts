// The statement recorder and EXPLAIN reader live with the Citus bench, which checks the same
// routing on a loaded cluster (src/evaluation/bench/citus-explain.ts).
export * from "../../src/evaluation/bench/citus-explain.js";
