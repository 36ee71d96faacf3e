// Package ssh fetches a cluster's admin kubeconfig from a control-plane node
// with the system ssh (FetchAdminConf, SSHArgs), reads Ansible inventories
// for the node's connection settings (LoadInventory: ansible-inventory when
// installed, else nestor's own YAML and INI readers; Inventory.Find: the
// host named like the node or at its address), and merges those with the
// command's flags and the topology's node (NodeSettings). It writes
// nothing: the caller writes the fetched kubeconfig.
package ssh
