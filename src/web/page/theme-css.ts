// The roles' stylesheet, made at build time (scripts/build.mjs) from the themes the worker tokenizes with.
import dark from 'shiki/themes/github-dark.mjs';
import light from 'shiki/themes/github-light.mjs';
import { rolesCss, type ThemeSource, themeRoles } from './theme-roles';

export const themeCss = (): string => rolesCss(themeRoles(light as ThemeSource, dark as ThemeSource));
