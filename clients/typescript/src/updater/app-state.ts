// React Native's app lifecycle for the updater: what a Swift app's client does by itself
// on UIKit's background and foreground notifications, in one line of the app.

import type { SwitchboardClient } from "./client.js";

/** What the client reads of React Native's `AppState` (passed in: the package imports no React Native). */
export interface AppStateLike {
  addEventListener(type: "change", listener: (state: string) => void): { remove(): void };
}

/**
 * Pauses `client` when the app goes to the background (its held poll ends at once) and
 * resumes it when the app is active again (it asks at once); `inactive`, iOS's moment
 * between the two, changes nothing. Returns the function that stops following.
 *
 * ```ts
 * import { AppState } from "react-native";
 * followAppState(routes, AppState);
 * ```
 */
export function followAppState(client: SwitchboardClient, appState: AppStateLike): () => void {
  const subscription = appState.addEventListener("change", (state) => {
    if (state === "active") client.resume();
    else if (state === "background") void client.pause();
  });
  return () => subscription.remove();
}
