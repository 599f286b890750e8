// The fetcher's connection pool: an undici Agent whose sockets can only reach addresses the URL
// guard approved.
//
// Every hop is checked by the guard before it is sent, and the check's addresses are pinned for
// that host name. When undici opens a socket, its `lookup` answers from the pins instead of asking
// DNS again, so a name cannot pass the check with a public address and then connect to a private
// one (DNS rebinding). A host with no pin (which the fetcher never produces) is checked by the
// guard right there rather than resolved unchecked. IP literals never reach `lookup`; their check
// is the hop's check, which needs no DNS.

import type { LookupAddress, LookupOptions } from "node:dns";
import type { LookupFunction } from "node:net";
import type { Dispatcher } from "undici";
import { lazyRequire } from "../lazy-require.js";
import type { ResolvedAddress, UrlGuard } from "./url-policy.js";

/** Sockets per origin, as with the node:http agents this replaced. */
const CONNECTIONS_PER_ORIGIN = 8;

export interface PinnedAgent {
  dispatcher: Dispatcher;
  /** records what the guard approved for `hostname`; new sockets to it connect only there */
  pin(hostname: string, addresses: ResolvedAddress[]): void;
  /** closes every socket, in-flight requests included */
  destroy(): void;
}

/** undici, loaded with the first crawl's agent: 0.2 CPU-s at every process start otherwise */
const undici = lazyRequire<typeof import("undici")>("undici");

export function createPinnedAgent(guard: UrlGuard): PinnedAgent {
  const pins = new Map<string, ResolvedAddress[]>();
  const lookup = pinnedLookup(pins, guard);
  const { Agent } = undici();
  const agent = new Agent({ connections: CONNECTIONS_PER_ORIGIN, connect: { lookup } });
  return {
    dispatcher: agent,
    pin: (hostname, addresses) => void pins.set(bareHost(hostname), addresses),
    destroy: () => void agent.destroy().catch(() => undefined),
  };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup stand-in that only ever answers with guard-approved addresses. */
function pinnedLookup(pins: Map<string, ResolvedAddress[]>, guard: UrlGuard): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const pinned = pins.get(bareHost(hostname));
    if (pinned) return answer(pinned, options, callback);
    guard.check(`http://${hostname}/`).then(
      (checked) => answer(checked.addresses, options, callback),
      (err: NodeJS.ErrnoException) => callback(err, ""),
    );
  };
}

/** Answers a lookup in the shape it asked for (one address or all), preferring its family. */
function answer(addresses: ResolvedAddress[], options: LookupOptions, callback: LookupCallback): void {
  const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
  const list = wanted.length ? wanted : addresses;
  if (options.all) callback(null, list.map((a) => ({ address: a.address, family: a.family })));
  else callback(null, list[0].address, list[0].family);
}

/** Host names as URL spells them and as sockets get them differ only in IPv6 brackets. */
function bareHost(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}
