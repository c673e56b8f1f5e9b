import { TabDock } from '../ui/tab-dock';
import { selectActiveTab, selectTabBarVisible, selectTabs } from '../machines/tab-bar.selectors';
import { useRootActors, useTabBarSelector } from './root-actors.context';

/** Connects the tab-bar actor to the dock: shown or hidden, tabs of the level, active tab, choice. */
export function TabBar() {
  const { tabBar } = useRootActors();
  const visible = useTabBarSelector(selectTabBarVisible);
  const tabs = useTabBarSelector(selectTabs);
  const active = useTabBarSelector(selectActiveTab);
  if (!visible) return null;
  return (
    <TabDock tabs={tabs} active={active} onSelect={(path) => tabBar.send({ type: 'tab.select', path })} />
  );
}
