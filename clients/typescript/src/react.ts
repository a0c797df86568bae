// switchboard-client/react: the client for React and React Native components, on
// `useSyncExternalStore`. An entry of its own, so that an app without React pays nothing;
// React (18 or later) is a peer dependency.

import { createContext, createElement, useContext, useSyncExternalStore } from "react";
import type { ReactElement, ReactNode } from "react";
import type { ResolveContext, ResolveResult } from "./engine/compiled-manifest.js";
import type { SwitchboardClient } from "./updater/client.js";
import type { ClientEvent, FailedEvent, ManifestInUse } from "./updater/options.js";

const ClientContext = createContext<SwitchboardClient | null>(null);

/** Makes `client` the one the hooks below read, for every component under it. */
export function SwitchboardProvider(props: { client: SwitchboardClient; children?: ReactNode }): ReactElement {
  return createElement(ClientContext.Provider, { value: props.client }, props.children);
}

/** The client of the nearest `SwitchboardProvider`; throws outside one (a mistake in the app's tree, not at run time). */
export function useSwitchboardClient(): SwitchboardClient {
  const client = useContext(ClientContext);
  if (client === null) throw new Error("a Switchboard hook outside <SwitchboardProvider client={...}>");
  return client;
}

// One subscribe function per client, so that React does not resubscribe on every render.
const subscriptions = new WeakMap<SwitchboardClient, (onChange: () => void) => () => void>();

/** Subscribes to the client's events; what `useSyncExternalStore` calls. */
function subscribeTo(client: SwitchboardClient): (onChange: () => void) => () => void {
  let cached = subscriptions.get(client);
  if (cached === undefined) {
    cached = (onChange: () => void) => client.subscribe((_event: ClientEvent) => onChange());
    subscriptions.set(client, cached);
  }
  return cached;
}

/** The manifest in use, null until there is one; the component renders again when another is adopted. */
export function useManifest(): ManifestInUse | null {
  const client = useSwitchboardClient();
  return useSyncExternalStore(subscribeTo(client), () => client.current, () => client.current);
}

/**
 * What the manifest in use resolves `url` to, in `context` (the client's own when none is
 * given); null before any manifest. Rendered again when another manifest is adopted.
 * Never throws (an `appVersion` that does not parse is replaced by the client's own).
 */
export function useResolve(url: string, context?: ResolveContext): ResolveResult | null {
  const client = useSwitchboardClient();
  const manifest = useManifest();
  return manifest === null ? null : client.resolve(url, context);
}

/** The last update that failed, null once a manifest is adopted after it. */
export function useLastFailure(): FailedEvent | null {
  const client = useSwitchboardClient();
  return useSyncExternalStore(subscribeTo(client), () => client.lastFailure, () => client.lastFailure);
}
