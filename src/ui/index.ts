/** Presentational daisyUI components: props in, callbacks out, no actors (docs/decisions.md D11). */
export { PageHeader, type PageHeaderProps } from './page-header';
export {
  Loading,
  EmptyState,
  ErrorState,
  NoPermission,
  type LoadingProps,
  type EmptyStateProps,
  type ErrorStateProps,
  type NoPermissionProps,
} from './states';
export { ConfirmDialog, type ConfirmDialogProps } from './confirm-dialog';
export { Money, type MoneyProps } from './money';
export { Toast, type ToastProps } from './toast';
export { TabDock, type TabDockProps, type TabDockItem } from './tab-dock';
export { Icon, type IconName } from './icons';
// Staff-only components (ResourceList, FormField, Sheet) are imported by path, not from here: this barrel is on the
// pay page's path, and a chunk shared with it would carry them there.
