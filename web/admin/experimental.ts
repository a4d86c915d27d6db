/**
 * Whether the signed-in user asked for the console's experimental features (their `experimentalFeatures`). Set by
 * the console when the user is loaded or saves their profile; read where an experimental feature would show.
 */
let on = false;

export const experimental = () => on;
export const setExperimental = (value: boolean | undefined) => {
  on = value === true;
};

/** What the console marks experimental: shown only to users who turned experimental features on. */
export const EXPERIMENTAL_FEATURES = ['Suggest outlines from a floor’s plan picture (Floors & plans, drawing units)'] as const;
