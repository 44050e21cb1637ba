//! Which cloud provider's block device a disk is, from the strings sysfs gives: an NVMe
//! controller's `model`, a SCSI device's `vendor` and `model` (padded with spaces by the kernel:
//! trimmed before comparing), a driver's name. The strings are those the providers' own udev
//! rules and tools match (amazon-ec2-utils, GoogleCloudPlatform/guest-configs, azure-vm-utils),
//! or the providers' `/dev/disk/by-id` names where no rule gives them (DigitalOcean, Alibaba).

use crate::model::cloud::CloudDisk;

/// The provider's disk that `model`, `vendor` and `driver` name, if any.
pub fn recognise(
    model: Option<&str>,
    vendor: Option<&str>,
    driver: Option<&str>,
) -> Option<CloudDisk> {
    let model = model.map(str::trim).unwrap_or("");
    let vendor = vendor.map(str::trim).unwrap_or("");
    if driver.map(str::trim) == Some("vbd") {
        return Some(CloudDisk::XenVbd);
    }
    let by_model = match model {
        "Amazon Elastic Block Store" => Some(CloudDisk::AwsEbs),
        "Amazon EC2 NVMe Instance Storage" => Some(CloudDisk::AwsInstanceStore),
        "nvme_card-pd" => Some(CloudDisk::GooglePersistentDisk),
        "MSFT NVMe Accelerator v1.0" => Some(CloudDisk::AzureDisk),
        "Microsoft NVMe Direct Disk" | "Microsoft NVMe Direct Disk v2" => {
            Some(CloudDisk::AzureLocalNvme)
        }
        "Alibaba Cloud Elastic Block Storage" => Some(CloudDisk::AlibabaEssd),
        m if m
            .strip_prefix("nvme_card")
            .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit())) =>
        {
            Some(CloudDisk::GoogleLocalSsd)
        }
        _ => None,
    };
    by_model.or(match (vendor, model) {
        ("Google", "PersistentDisk") => Some(CloudDisk::GooglePersistentDisk),
        ("Google", "EphemeralDisk") => Some(CloudDisk::GoogleLocalSsd),
        ("Msft", "Virtual Disk") => Some(CloudDisk::AzureDisk),
        ("ORACLE", "BlockVolume") => Some(CloudDisk::OracleBlockVolume),
        ("HC", "Volume") => Some(CloudDisk::HetznerVolume),
        ("DO", "Volume") => Some(CloudDisk::DigitalOceanVolume),
        ("Linode", _) => Some(CloudDisk::LinodeVolume),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The strings as the kernel writes them: an NVMe model padded to 40 bytes, a SCSI vendor
    /// to 8 and a model to 16, each with its newline.
    #[test]
    fn each_providers_strings_name_its_disk() {
        let nvme = |m: &str| recognise(Some(&format!("{m:<40}\n")), None, Some("nvme"));
        let scsi = |v: &str, m: &str| {
            recognise(
                Some(&format!("{m:<16}\n")),
                Some(&format!("{v:<8}\n")),
                Some("sd"),
            )
        };
        assert_eq!(nvme("Amazon Elastic Block Store"), Some(CloudDisk::AwsEbs));
        assert_eq!(
            nvme("Amazon EC2 NVMe Instance Storage"),
            Some(CloudDisk::AwsInstanceStore)
        );
        assert_eq!(nvme("nvme_card-pd"), Some(CloudDisk::GooglePersistentDisk));
        assert_eq!(nvme("nvme_card"), Some(CloudDisk::GoogleLocalSsd));
        assert_eq!(nvme("nvme_card12"), Some(CloudDisk::GoogleLocalSsd));
        assert_eq!(
            nvme("MSFT NVMe Accelerator v1.0"),
            Some(CloudDisk::AzureDisk)
        );
        assert_eq!(
            nvme("Microsoft NVMe Direct Disk v2"),
            Some(CloudDisk::AzureLocalNvme)
        );
        assert_eq!(
            scsi("Google", "PersistentDisk"),
            Some(CloudDisk::GooglePersistentDisk)
        );
        assert_eq!(
            scsi("Google", "EphemeralDisk"),
            Some(CloudDisk::GoogleLocalSsd)
        );
        assert_eq!(scsi("Msft", "Virtual Disk"), Some(CloudDisk::AzureDisk));
        assert_eq!(
            scsi("ORACLE", "BlockVolume"),
            Some(CloudDisk::OracleBlockVolume)
        );
        assert_eq!(scsi("HC", "Volume"), Some(CloudDisk::HetznerVolume));
        assert_eq!(scsi("Linode", "Volume"), Some(CloudDisk::LinodeVolume));
        assert_eq!(recognise(None, None, Some("vbd")), Some(CloudDisk::XenVbd));
    }

    /// Hardware and a plain hypervisor's disks are no provider's volume.
    #[test]
    fn other_disks_are_none() {
        assert_eq!(
            recognise(Some("Samsung SSD 980 PRO 2TB"), None, Some("nvme")),
            None
        );
        assert_eq!(
            recognise(Some("QEMU HARDDISK   "), Some("QEMU    "), Some("sd")),
            None
        );
        assert_eq!(recognise(Some("nvme_card-x"), None, None), None);
        assert_eq!(recognise(None, Some("0x1af4"), Some("virtio_blk")), None);
        assert_eq!(recognise(None, None, None), None);
    }
}
