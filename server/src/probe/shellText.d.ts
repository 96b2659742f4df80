/** Shell scripts are bundled as text (see scripts/build.mjs), to be passed as an argument, never run from a file. */
declare module '*.sh' {
  const text: string;
  export default text;
}
