#include "resources/catalog.h"

#include <cstdio>
#include <cstdlib>

#include "resources/block/block_resources.h"
#include "resources/cluster/cluster_resources.h"
#include "resources/config/config_resources.h"
#include "resources/etcd/etcd_resources.h"
#include "resources/k8s/k8s_resources.h"
#include "resources/network/network_resources.h"
#include "resources/secrets/secrets_resources.h"
#include "resources/v1alpha1/v1alpha1_resources.h"
#include "runtime/resource/meta/namespace.h"

namespace cosi::resources {
namespace {

ResourceDefinitionInput def(std::string_view type, std::string_view ns, std::vector<PrintColumn> columns = {},
                            Sensitivity sensitivity = Sensitivity::kNonSensitive,
                            std::vector<std::string> aliases = {}) {
  return {std::string(type), std::string(ns), std::move(aliases), std::move(columns), sensitivity};
}

std::vector<ResourceDefinitionInput> inputs() {
  const auto sensitive = Sensitivity::kSensitive;
  return {
      def(kMemberType, kClusterNamespace,
          {{"Hostname", "{.hostname}"}, {"Machine Type", "{.machineType}"}, {"OS", "{.operatingSystem}"},
           {"Addresses", "{.addresses}"}}),
      def(kAffiliateType, kClusterNamespace,
          {{"Hostname", "{.hostname}"}, {"Machine Type", "{.machineType}"}, {"Addresses", "{.addresses}"}}),
      def(kIdentityType, kClusterNamespace, {{"ID", "{.nodeId}"}}),
      def(kInfoType, kClusterNamespace, {{"Cluster ID", "{.clusterId}"}, {"Cluster Name", "{.clusterName}"}}),
      def(kDiscoveryConfigType, kConfigNamespace, {}, sensitive),
      def(kEtcdMemberType, kEtcdNamespace, {{"Member ID", "{.memberID}"}}),
      def(kEtcdSpecType, kEtcdNamespace,
          {{"Name", "{.name}"}, {"AdvertisedAddresses", "{.advertisedAddresses}"},
           {"ListenPeerAddresses", "{.listenPeerAddresses}"}, {"ListenClientAddresses", "{.listenClientAddresses}"}}),
      def(kEtcdConfigType, kEtcdNamespace, {{"Image", "{.image}"}}),
      def(kEtcdStatusType, kEtcdNamespace,
          {{"Hostname", "{.hostname}"}, {"Leader", "{.leader}"}, {"Raft Index", "{.raftIndex}"},
           {"Learner", "{.isLearner}"}, {"Errors", "{.errors}"}}),
      def(kEtcdClusterType, kEtcdNamespace,
          {{"Members", "{.members}"}, {"Healthy", "{.healthyMembers}"}, {"Quorum", "{.quorumNeeded}"},
           {"Has Quorum", "{.hasQuorum}"}, {"Leader", "{.leader}"}}),
      def(kLinkStatusType, kNetworkNamespace,
          {{"Alias", "{.alias}"}, {"Type", "{.type}"}, {"Kind", "{.kind}"}, {"Hw Addr", "{.hardwareAddr}"},
           {"Oper State", "{.operationalState}"}, {"Link State", "{.linkState}"}},
          Sensitivity::kNonSensitive, {"link", "links"}),
      def(kOperatorSpecType, kNetworkNamespace, {}, sensitive),
      def(kAddressSpecType, kNetworkNamespace),
      def(kAddressStatusType, kNetworkNamespace, {{"Address", "{.address}"}, {"Link", "{.linkName}"}},
          Sensitivity::kNonSensitive, {"address", "addresses"}),
      def(kVIPStatusType, kNetworkNamespace,
          {{"IP", "{.ip}"}, {"Link", "{.linkName}"}, {"Holder", "{.holder}"}, {"Held Here", "{.heldByThisNode}"}}),
      def(kHostnameStatusType, kNetworkNamespace, {{"Hostname", "{.hostname}"}, {"Domainname", "{.domainname}"}}),
      def(kNodeAddressType, kNetworkNamespace, {{"Addresses", "{.addresses}"}}),
      def(kEndpointType, kControlPlaneNamespace, {{"Addresses", "{.addresses}"}}),
      def(kKubePrismEndpointsType, kK8sNamespace,
          {{"Hosts", "{.endpoints[*].host}"}, {"Ports", "{.endpoints[*].port}"}}),
      def(kKubePrismConfigType, kK8sNamespace, {{"Host", "{.host}"}, {"Port", "{.port}"}, {"Endpoints", "{.endpoints}"}}),
      def(kKubePrismStatusType, kK8sNamespace, {{"HOST", "{.host}"}, {"HEALTHY", "{.healthy}"}}),
      def(kKubePrismUpstreamType, kK8sNamespace,
          {{"Healthy", "{.healthy}"}, {"Latency", "{.latency}"}, {"Active", "{.activeConnections}"}}),
      def(kMachineConfigType, kConfigNamespace, {}, sensitive),
      def(kApiCertificatesType, kSecretsNamespace, {}, sensitive),
      def(kEtcdCertsType, kSecretsNamespace, {}, sensitive),
      def(kServiceType, kRuntimeNamespace, {{"Running", "{.running}"}, {"Healthy", "{.healthy}"}}),
      def(kServiceStatusType, kRuntimeNamespace,
          {{"State", "{.state}"}, {"Healthy", "{.healthy}"}, {"Health", "{.healthMessage}"}}),
      def(kServiceRequestType, kRuntimeNamespace, {{"Stopped", "{.stopped}"}, {"Restarts", "{.restarts}"}}),
      def(kDiskType, kRuntimeNamespace,
          {{"Size", "{.pretty_size}"}, {"Read Only", "{.readonly}"}, {"Transport", "{.transport}"},
           {"Rotational", "{.rotational}"}, {"WWID", "{.wwid}"}, {"Model", "{.model}"}, {"Serial", "{.serial}"}}),
  };
}

}  // namespace

std::vector<ResourceDefinitionSpec> definitions() {
  std::vector<ResourceDefinitionSpec> out{resource_definition_definition(), namespace_definition()};
  for (auto& input : inputs()) {
    std::string type = input.type;
    auto spec = make_definition(std::move(input));
    if (!spec.ok()) {
      // A bad entry above is a programming error caught by the first test run.
      std::fprintf(stderr, "cosi: resource catalog: %s\n", spec.error().to_string().c_str());
      std::abort();
    }
    out.push_back(std::move(*spec));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> namespaces() {
  return {
      {std::string(kMetaNamespace), "Metadata: resource definitions and namespaces."},
      {std::string(kClusterNamespace), "Cluster discovery and membership."},
      {std::string(kClusterRawNamespace), "Affiliates as each discovery registry reports them."},
      {std::string(kConfigNamespace), "The applied machine configuration and what is derived from it."},
      {std::string(kEtcdNamespace), "etcd's configuration, membership and health."},
      {std::string(kNetworkNamespace), "Addresses, operators and shared VIPs."},
      {std::string(kK8sNamespace), "Kubernetes control-plane access: KubePrism."},
      {std::string(kControlPlaneNamespace), "The control planes' addresses, as discovered."},
      {std::string(kSecretsNamespace), "The node's certificates and keys."},
      {std::string(kRuntimeNamespace), "The services the node runs, and its disks."},
  };
}

void register_types(ResourceTypes& types) {
  types.add<MemberSpec>(kMemberType);
  types.add<AffiliateSpec>(kAffiliateType);
  types.add<IdentitySpec>(kIdentityType);
  types.add<InfoSpec>(kInfoType);
  types.add<DiscoveryConfigSpec>(kDiscoveryConfigType);
  types.add<EtcdMemberSpec>(kEtcdMemberType);
  types.add<EtcdSpecSpec>(kEtcdSpecType);
  types.add<EtcdConfigSpec>(kEtcdConfigType);
  types.add<EtcdStatusSpec>(kEtcdStatusType);
  types.add<EtcdClusterSpec>(kEtcdClusterType);
  types.add<LinkStatusSpec>(kLinkStatusType);
  types.add<OperatorSpecSpec>(kOperatorSpecType);
  types.add<AddressSpecSpec>(kAddressSpecType);
  types.add<AddressStatusSpec>(kAddressStatusType);
  types.add<VIPStatusSpec>(kVIPStatusType);
  types.add<HostnameStatusSpec>(kHostnameStatusType);
  types.add<NodeAddressSpec>(kNodeAddressType);
  types.add<EndpointSpec>(kEndpointType);
  types.add<KubePrismEndpointsSpec>(kKubePrismEndpointsType);
  types.add<KubePrismConfigSpec>(kKubePrismConfigType);
  types.add<KubePrismStatusesSpec>(kKubePrismStatusType);
  types.add<KubePrismUpstreamSpec>(kKubePrismUpstreamType);
  types.add<MachineConfigSpec>(kMachineConfigType);
  types.add<ApiCertificatesSpec>(kApiCertificatesType);
  types.add<EtcdCertsSpec>(kEtcdCertsType);
  types.add<ServiceSpec>(kServiceType);
  types.add<ServiceStatusSpec>(kServiceStatusType);
  types.add<ServiceRequestSpec>(kServiceRequestType);
  types.add<DiskSpec>(kDiskType);
}

}  // namespace cosi::resources
