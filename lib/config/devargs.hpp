// What a port's devargs say of its device, read the one way the plan, the
// EAL arguments and the capture's hint share. Pure.
#pragma once

#include <string>

namespace pmdfwd {

// True for devargs that name a PCI device ("0000:01:00.0", "01:00.0,opt=1").
bool is_pci_devargs(const std::string& devargs);

// The device name part of devargs: everything before the first ','.
std::string devargs_name(const std::string& devargs);

// The device devargs name, spelled one way: a PCI address with its domain
// and in lower case ("01:00.0" and "0000:01:00.0" are one device), else the
// name as it is. Two ports with the same key would be one DPDK device.
std::string device_key(const std::string& devargs);

}  // namespace pmdfwd
