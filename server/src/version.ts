import { version as packageVersion } from '../../package.json';

/** The version of the extension, its server and its CLI: they ship together. */
export const version: string = packageVersion;
