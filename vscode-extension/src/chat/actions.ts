/** What a card's or a banner's buttons may do: the webview asks, the host checks the ask
 * against these lists (it trusts nothing the webview posts). */

/** Buttons in the status banners run these commands, nothing else. */
export const STATUS_COMMANDS = [
  "foehn.setApiKey",
  "foehn.chooseProvider",
  "foehn.locateServer",
  "foehn.openWalkthrough",
  "foehn.restartServer",
  "foehn.pickPython",
  "foehn.showLog",
  "foehn.useOfflineModel",
  "workbench.trust.manage",
] as const;
export type StatusCommand = (typeof STATUS_COMMANDS)[number];

/** What the settings search opens on: one setting, or all of Foehn's. */
export const SETTINGS_QUERIES = ["foehn.baseUrl", "foehn.model", "@ext:foehn.foehn"] as const;
