// The few React APIs switchboard-client/react uses, declared here so that the package
// builds with no @types package (an app's own @types/react, or React's, takes their
// place); React itself is the app's, a peer dependency.

declare module "react" {
  export type ReactNode = unknown;
  export interface ReactElement {
    type: unknown;
    props: unknown;
    key: string | null;
  }
  export interface Context<T> {
    Provider: unknown;
    readonly __value?: T;
  }
  export function createContext<T>(defaultValue: T): Context<T>;
  export function useContext<T>(context: Context<T>): T;
  export function createElement(type: unknown, props: unknown, ...children: unknown[]): ReactElement;
  export function useSyncExternalStore<T>(subscribe: (onChange: () => void) => () => void, getSnapshot: () => T, getServerSnapshot?: () => T): T;
}
