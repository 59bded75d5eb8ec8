import { App } from 'cdk8s';

/** Runs cdk8s validation the way synth does; returns the error text, or '' when the app is valid. */
export function validationErrors(app: App): string {
  try {
    app.synthYaml();
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}
