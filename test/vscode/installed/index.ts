/** extensionTestsPath of the smoke check of the extension installed from the packaged .vsix. */
import { runMochaFolder } from '../mochaRunner';

export function run(): Promise<void> {
  return runMochaFolder(__dirname);
}
