/**
 * The controllers' image names: what `npx projen images` tags and what the charts run, so the
 * two cannot drift. A cluster that mirrors registries passes its own `image` to the charts (and
 * `--registry` to the builder).
 */

/** Registry and repository prefix of the controller images. */
export const CONTROLLER_IMAGE_REGISTRY = 'ghcr.io/cdk8s-operator';

/** The controllers' release, the tag of their images. */
export const CONTROLLER_IMAGE_TAG = '0.1.0';

/** The image of controller `name` (its folder under controllers/), e.g. `ghcr.io/cdk8s-operator/sampledb-controller:0.1.0`. */
export function controllerImage(name: string, registry: string = CONTROLLER_IMAGE_REGISTRY): string {
  return `${registry.replace(/\/+$/, '')}/${name}-controller:${CONTROLLER_IMAGE_TAG}`;
}
